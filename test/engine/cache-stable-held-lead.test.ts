import { describe, expect, it } from 'vitest';
import { countMessageTokens, LruTokenCache, planContext, validateMessageOrder } from '../../src/domain/engine/index.js';
import { encoder, longAnswerChat, MODEL, QUESTION, replayCacheStable, SYSTEM } from './helpers/long-answer-chat.js';

/**
 * cache_stable on a chat whose answers are each longer than the core's whole room at 2k (short questions, ~650-token
 * answers: LongMemEval S has such chats, where logging showed most restarts of the core at 2k in a loop). A core
 * whose next message is such an answer stops at its lead; without more, the history left out behind it passes
 * CORE_MAX_GAP rooms at once and the core restarts at nearly every request, rebuilding the same small lead. The rule
 * under test: the newer messages that fit still join a core held back to a small lead (up to its low-water mark),
 * the long answer waits outside, so the core keeps reaching the newest history and is sent again as it was.
 */

describe('cache_stable when every answer is longer than the core can hold', () => {
  it('keeps the core reaching the newest questions instead of restarting it at every request', () => {
    const history = longAnswerChat(50, 22);
    const tokens = history.map((message) => countMessageTokens(message, encoder));
    expect(Math.min(...tokens.filter((_, at) => at % 2 === 1))).toBeGreaterThan(550);
    const requests = replayCacheStable(history, 2000, { userFirst: true });
    const restarts = requests.filter((request) => request.restarted).length;
    // The previous prompt's core leads again: the system prompt and more than one message of history.
    const repeated = requests.filter((request) => !request.restarted && request.lead >= 3).length;
    expect(requests.length).toBeGreaterThan(15);
    // The core restarts once its low-water mark is full and the history behind it passes CORE_MAX_GAP rooms, not at
    // every request (without the rule: 44 restarts in 44 requests here)…
    expect(restarts).toBeGreaterThan(0);
    expect(restarts).toBeLessThan(requests.length * 0.7);
    // …and every other request sends the previous core first again.
    expect(repeated).toBe(requests.length - restarts);
  });

  it('keeps the roles alternating when a held core takes a question without its answer (strict alternation)', () => {
    const history = longAnswerChat(40, 22);
    const tokenCache = new LruTokenCache(50_000);
    let sequence: string[] | undefined;
    for (let end = 12; end <= history.length; end += 2) {
      const result = planContext({
        messages: [SYSTEM, ...history.slice(0, end), QUESTION],
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
