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
 * cache_stable on a chat whose answers are each longer than the core's whole room at 2k (short questions, ~650-token
 * answers: LongMemEval S has such chats, where logging showed most restarts of the core at 2k in a loop). A core
 * whose next message is such an answer stops at its lead; without more, the history left out behind it passes
 * CORE_MAX_GAP rooms at once and the core restarts at nearly every request, rebuilding the same small lead. The rule
 * under test: the newer messages that fit still join a core held back to a small lead (up to its low-water mark),
 * the long answer waits outside, so the core keeps reaching the newest history and is sent again as it was.
 */
const MODEL = 'gpt-4o';
const encoder = loadEncoder('o200k_base');
const SYSTEM = { role: 'system', content: 'You are a helpful assistant.' };
const TOPICS = ['sourdough', 'marathon', 'tax return', 'kitchen tiles', 'python asyncio', 'trip to Lisbon', 'piano'];

function veryLongAnswer(turn: number, topic: string): string {
  const steps = Array.from(
    { length: 22 },
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
    messages.push({ role: 'assistant', content: veryLongAnswer(turn, topic) });
  }
  return messages;
}

/** How many leading messages two prompts share (the same objects in the same places). */
function sharedLead(previous: readonly unknown[], current: readonly unknown[]): number {
  let shared = 0;
  while (shared < previous.length && shared < current.length && previous[shared] === current[shared]) shared += 1;
  return shared;
}

describe('cache_stable when every answer is longer than the core can hold', () => {
  it('keeps the core reaching the newest questions instead of restarting it at every request', () => {
    const history = chat(50);
    const tokens = history.map((message) => countMessageTokens(message, encoder));
    expect(Math.min(...tokens.filter((_, at) => at % 2 === 1))).toBeGreaterThan(550);
    const budget = 2000;
    const tokenCache = new LruTokenCache(50_000);
    const question = { role: 'user', content: 'Remind me: what did we settle about the sourdough?' };
    let previous: { sequence: string[]; messages: unknown[] } | undefined;
    let requests = 0;
    let restarts = 0;
    let repeated = 0;
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
      expect((result.messages[1] as { role: string }).role).toBe('user');
      const sent = result.messages.slice(0, -1);
      if (previous) {
        requests += 1;
        if (result.plan.notes.some((note) => note.startsWith('cache_stable: the core restarted'))) restarts += 1;
        // The previous prompt's core leads again: the system prompt and more than one message of history.
        else if (sharedLead(previous.messages, sent) >= 3) repeated += 1;
      }
      previous = { sequence: result.sequence.slice(0, -1), messages: sent };
    }
    expect(requests).toBeGreaterThan(15);
    // The core restarts once its low-water mark is full and the history behind it passes CORE_MAX_GAP rooms, not at
    // every request (without the rule: 44 restarts in 44 requests here)…
    expect(restarts).toBeGreaterThan(0);
    expect(restarts).toBeLessThan(requests * 0.7);
    // …and every other request sends the previous core first again.
    expect(repeated).toBe(requests - restarts);
  });

  it('keeps the roles alternating when a held core takes a question without its answer (strict alternation)', () => {
    const history = chat(40);
    const question = { role: 'user', content: 'Remind me: what did we settle about the sourdough?' };
    const tokenCache = new LruTokenCache(50_000);
    let sequence: string[] | undefined;
    for (let end = 12; end <= history.length; end += 2) {
      const result = planContext({
        messages: [SYSTEM, ...history.slice(0, end), question],
        model: MODEL,
        options: { maxTokens: 2000, algorithm: 'cache_stable', roleAlternation: 'strict' },
        tokenCache,
        previousSequence: sequence,
      });
      expect(result.plan.tokensAfter).toBeLessThanOrEqual(2000);
      expect(validateMessageOrder(result.messages)).toEqual([]);
      const roles = result.messages.slice(1).map((message) => (message as { role: string }).role);
      expect(roles[0]).toBe('user');
      for (let at = 1; at < roles.length; at += 1) expect(roles[at]).not.toBe(roles[at - 1]);
      sequence = result.sequence.slice(0, -1);
    }
  });
});
