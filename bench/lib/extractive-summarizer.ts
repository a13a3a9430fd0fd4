import { loadEncoder, type Summarizer } from '../../src/domain/engine/index.js';

/** One sentence of a message, with where it came from and how informative it looks. */
interface Sentence {
  role: string;
  text: string;
  order: number;
  score: number;
  tokens: number;
}

/** Capitalised words not at the start of the sentence, plus numbers (dates, amounts, ids) count double. */
function informativeness(text: string): number {
  const words = text.split(/\s+/).slice(1);
  const names = words.filter((word) => /^[A-Z][a-zA-Z'-]+/.test(word)).length;
  const numbers = (text.match(/\d+/g) ?? []).length;
  return names + 2 * numbers;
}

/** Splits text into sentences (on . ! ? followed by a space). */
function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+/)
    .map((sentence) => sentence.trim())
    .filter(Boolean);
}

/**
 * A deterministic extractive summarizer (no network) implementing the engine's `Summarizer`:
 * keeps the sentences with the most capitalised words and numbers, as `Role: sentence` lines
 * in their original order, up to `targetTokens` (o200k tokens). Ties go to the newer sentence.
 */
export class ExtractiveSummarizer implements Summarizer {
  private readonly encoder = loadEncoder('o200k_base');

  /** The summary text (the best sentence cut to size when none fits whole). */
  async summarize(request: { messages: unknown[]; targetTokens: number }): Promise<string> {
    const all: Sentence[] = [];
    for (const message of request.messages) {
      const typed = message as { role?: unknown; content?: unknown };
      if (typeof typed.content !== 'string') continue;
      const role = typed.role === 'assistant' ? 'Assistant' : 'User';
      for (const text of sentences(typed.content)) {
        const line = `${role}: ${text}`;
        all.push({
          role,
          text: line,
          order: all.length,
          score: informativeness(text),
          tokens: this.encoder.count(line) + 1,
        });
      }
    }
    const ranked = all.sort((a, b) => b.score - a.score || b.order - a.order);
    const chosen: Sentence[] = [];
    let used = 0;
    for (const sentence of ranked) {
      if (used + sentence.tokens > request.targetTokens) continue;
      chosen.push(sentence);
      used += sentence.tokens;
    }
    if (chosen.length === 0 && ranked[0]) return `${ranked[0].text.slice(0, Math.max(0, request.targetTokens * 3))}…`;
    return chosen
      .sort((a, b) => a.order - b.order)
      .map((sentence) => sentence.text)
      .join('\n');
  }
}
