import { describe, expect, it } from 'vitest';
import { messageIds, planContext, type PlanResult, validateMessageOrder } from '../../src/domain/engine/index.js';
import { everydayChat } from './helpers/everyday-chat.js';

/**
 * cache_stable's fresh share (the messages picked for the question outside the core) when the question stays on its
 * subject: the messages picked again are sent right after the core, in the order they were sent, and the recent
 * messages after them, so the prompt repeats through them; when the subject changes, the recent messages follow the
 * core again.
 */
const MODEL = 'gpt-4o';
const BUDGET = 800;
/** Turns (exchange numbers) carrying a fact about Ingrid, far apart, so no single stretch of the chat holds them all. */
const FACTS: Record<number, string> = {
  3: 'My sister Ingrid moved to Tromsø last spring; she teaches geology at the university there.',
  24: 'Ingrid wrote that her geology students in Tromsø went out on the fjord to look at glacial deposits.',
  45: 'Ingrid says the winter in Tromsø is dark, but the northern lights over the university make up for it.',
};
const AFTER_CORE = /^cache_stable: \d+ message\(s\) picked for the question last time sent again after the core/;

const chat = (exchanges: number) => everydayChat(exchanges, FACTS);

/** The chat's first `exchanges` exchanges, then `question`, planned with the previous prompt (the question left out). */
function ask(exchanges: number, question: string, previous: PlanResult | undefined) {
  const messages = [...chat(exchanges), { role: 'user', content: question }];
  const result = planContext({
    messages,
    model: MODEL,
    options: { maxTokens: BUDGET, algorithm: 'cache_stable' },
    previousSequence: previous?.sequence.slice(0, -1),
  });
  expect(result.plan.tokensAfter).toBeLessThanOrEqual(BUDGET);
  expect(validateMessageOrder(result.messages)).toEqual([]);
  return { messages, result };
}

const factIds = (messages: Parameters<typeof messageIds>[0]) => {
  const ids = messageIds(messages);
  return Object.keys(FACTS).map((turn) => ids[Number(turn) * 2]!);
};

describe('cache_stable: the fresh share when the question stays on its subject', () => {
  it('sends the messages picked again right after the core, so the next prompt repeats through them', () => {
    let previous: PlanResult | undefined;
    let previousAfterCore = false;
    let repeated = 0;
    for (let exchanges = 80; exchanges < 90; exchanges++) {
      const { messages, result } = ask(
        exchanges,
        'Tell me again about Ingrid in Tromsø and her geology work.',
        previous,
      );
      const facts = factIds(messages);
      // Every fact about Ingrid is sent, whatever the layout.
      for (const id of facts) expect(result.sequence).toContain(id);
      if (previous && exchanges >= 82) {
        // From the third request on, the prompt opens with all of the last one but its recent messages (the last 3
        // before the question): the core and every message picked for the question are read from the cache.
        const last = previous.sequence.slice(0, -1);
        let shared = 0;
        while (shared < last.length && result.sequence[shared] === last[shared]) shared += 1;
        expect(shared).toBe(last.length - 3);
        for (const id of facts) expect(last.slice(0, shared)).toContain(id);
      }
      const afterCore = result.plan.notes.some((note) => AFTER_CORE.test(note));
      if (previous && previousAfterCore && afterCore) {
        // The part of the last prompt expected to repeat (its core and the messages picked for the question) is
        // sent again first, unchanged, with every fact in it: the prompt cache reads through the fresh share.
        const stable = previous.sequence.slice(0, previous.stablePrefix);
        expect(result.sequence.slice(0, stable.length)).toEqual(stable);
        for (const id of facts) expect(stable).toContain(id);
        expect(result.plan.budget.cachedPrefixTokens).toBeGreaterThan(0);
        // The recent messages close the prompt before the question, in order.
        const tail = result.messages.slice(-4).map((message) => messages.indexOf(message as never));
        expect(tail).toEqual([messages.length - 4, messages.length - 3, messages.length - 2, messages.length - 1]);
        repeated += 1;
      }
      previous = result;
      previousAfterCore = afterCore;
    }
    // From the second request on the fresh share follows the core (the first one had no previous prompt to pick
    // again from); from the third on, every prompt repeats the last one's.
    expect(repeated).toBeGreaterThanOrEqual(8);
  });

  it('when the subject changes, the recent messages follow the core again and the new picks come last', () => {
    let previous: PlanResult | undefined;
    for (let exchanges = 80; exchanges < 83; exchanges++)
      previous = ask(exchanges, 'Tell me again about Ingrid in Tromsø and her geology work.', previous).result;
    const { messages, result } = ask(83, 'What did I say about the chess opening I was studying?', previous);
    expect(result.plan.notes.some((note) => AFTER_CORE.test(note))).toBe(false);
    const order = result.messages.map((message) => messages.indexOf(message as never));
    // One step back at most: the history in order (the recent messages at its end), then the new picks, then the
    // question.
    expect(order.filter((index, at) => at > 0 && index < order[at - 1]!).length).toBeLessThanOrEqual(1);
    expect(order.at(-1)).toBe(messages.length - 1);
    expect(order).toContain(messages.length - 2);
  });
});
