import type { Summarizer } from '../../../domain/engine/index.js';
import type { LlmClient } from '../../../domain/llm/llm-client.js';
import { renderTranscript } from './message-text.js';

/** System prompt: keep facts, decisions and open requests; terse; never claim completeness. */
export const SUMMARY_SYSTEM_PROMPT = [
  'You compress earlier parts of a chat so an assistant can continue it without the original messages.',
  'Keep every fact the user may rely on: numbers, amounts, dates, names, identifiers, code symbols, decisions, preferences, commitments and open requests.',
  'Drop greetings and filler. Write terse bullet points in the language of the chat, attributing statements ("User: …", "Assistant: …").',
  'Output only the summary. Do not claim that the summary is complete.',
].join(' ');

/** The engine's Summarizer backed by an OpenAI-compatible chat model (one call per request). */
export class LlmSummarizer implements Summarizer {
  constructor(private readonly client: LlmClient) {}

  /** Model id used in cache keys. */
  get model(): string {
    return this.client.options.model;
  }

  /** A summary of `messages` in about `targetTokens` tokens; the context is not sent, so a summary depends on its messages only (cacheable by id). */
  async summarize(request: { messages: unknown[]; targetTokens: number; signal?: AbortSignal }): Promise<string> {
    const target = Math.max(16, Math.floor(request.targetTokens));
    const user = `Summarize these ${request.messages.length} messages in at most ${target} tokens.\n\n${renderTranscript(request.messages)}\n\nSummary:`;
    return this.client.chat({
      messages: [
        { role: 'system', content: SUMMARY_SYSTEM_PROMPT },
        { role: 'user', content: user },
      ],
      maxTokens: Math.ceil(target * 1.5) + 32,
      temperature: 0,
      signal: request.signal,
    });
  }
}
