import { describe, expect, it } from 'vitest';
import {
  countMessageTokens,
  loadEncoder,
  LruTokenCache,
  planContext,
  REPLY_PRIMING_TOKENS,
  validateMessageOrder,
} from '../../src/domain/engine/index.js';

/**
 * cache_stable on a chat of long answers (a user and an assistant, each answer ~400 tokens: one exchange is a fifth of
 * a 2k budget), replayed exchange by exchange with the chat's previous prompt, as the context filter gives it. The
 * prompt cache hits only up to the first message that differs from the previous prompt, so the core must stay as it
 * was sent: a full core keeps its messages (newer history waits outside it) instead of losing its oldest ones at
 * every other request, and starts again only once the history left out behind it passes CORE_MAX_GAP rooms, from what
 * the question needs, opening with the part of the old core it still needs.
 */
const MODEL = 'gpt-4o';
const encoder = loadEncoder('o200k_base');
const SYSTEM = { role: 'system', content: 'You are a helpful assistant.' };
const TOPICS = ['sourdough', 'marathon', 'tax return', 'kitchen tiles', 'python asyncio', 'trip to Lisbon', 'piano'];

function longAnswer(turn: number, topic: string): string {
  const steps = Array.from(
    { length: 12 },
    (_, step) =>
      `${step + 1}. For the ${topic}, step ${step + 1} of plan ${turn}: check the details, write down what changed, ` +
      `and compare it with what we decided before about the ${topic}.`,
  );
  return `Here is a detailed answer about the ${topic} (answer ${turn}):\n\n${steps.join('\n')}`;
}

function chat(exchanges: number): Array<{ role: string; content: string }> {
  const messages: Array<{ role: string; content: string }> = [];
  for (let turn = 0; turn < exchanges; turn++) {
    const topic = TOPICS[turn % TOPICS.length]!;
    messages.push({ role: 'user', content: `Question ${turn}: what should I do next about the ${topic}?` });
    messages.push({ role: 'assistant', content: longAnswer(turn, topic) });
  }
  return messages;
}

/** How many leading messages two prompts share (the same objects in the same places). */
function sharedLead(previous: readonly unknown[], current: readonly unknown[]): number {
  let shared = 0;
  while (shared < previous.length && shared < current.length && previous[shared] === current[shared]) shared += 1;
  return shared;
}

describe('cache_stable on a chat of long answers, exchange by exchange', () => {
  it('keeps sending the core it sent (the prompt cache keeps hitting), within the budget and in order', () => {
    const history = chat(60);
    const tokens = history.map((message) => countMessageTokens(message, encoder));
    expect(Math.min(...tokens.filter((_, at) => at % 2 === 1))).toBeGreaterThan(300);
    const budget = 2000;
    const tokenCache = new LruTokenCache(50_000);
    const question = { role: 'user', content: 'Remind me: what did we settle about the sourdough?' };
    let previous: { sequence: string[]; messages: unknown[] } | undefined;
    let requests = 0;
    let kept = 0;
    let restarts = 0;
    let restartsKeepingLead = 0;
    for (let end = 12; end <= history.length; end += 2) {
      const messages: unknown[] = [SYSTEM, ...history.slice(0, end), question];
      const result = planContext({
        messages,
        model: MODEL,
        options: { maxTokens: budget, algorithm: 'cache_stable' },
        tokenCache,
        previousSequence: previous?.sequence,
      });
      expect(result.plan.tokensAfter).toBeLessThanOrEqual(budget);
      expect(
        result.messages.reduce<number>((sum, message) => sum + countMessageTokens(message, encoder), 0) +
          REPLY_PRIMING_TOKENS,
      ).toBe(result.plan.tokensAfter);
      expect(validateMessageOrder(result.messages)).toEqual([]);
      expect(result.messages[0]).toBe(SYSTEM);
      expect(result.messages.at(-1)).toBe(question);
      const sent = result.messages.slice(0, -1);
      if (previous) {
        requests += 1;
        const restarted = result.plan.notes.some((note) => note.startsWith('cache_stable: the core restarted'));
        const lead = sharedLead(previous.messages, sent);
        if (restarted) restarts += 1;
        // The core sent last time leads again: the system prompt and more than one exchange of history…
        if (!restarted && lead >= 3) kept += 1;
        // …and a core that starts again from what the question needs keeps the lead of the old one it still needs.
        if (restarted && lead >= 3) restartsKeepingLead += 1;
      }
      previous = { sequence: result.sequence.slice(0, -1), messages: sent };
    }
    expect(requests).toBeGreaterThan(20);
    // Every request that does not start the core again repeats the previous core first…
    expect(kept).toBe(requests - restarts);
    // …the core starts again once the history left out behind it passes CORE_MAX_GAP rooms…
    expect(restarts).toBeGreaterThan(0);
    // …and then still opens with the part of the old core the question needs (here, every time).
    expect(restartsKeepingLead).toBe(restarts);
  });
});
