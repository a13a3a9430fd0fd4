import { describe, expect, it } from 'vitest';
import {
  LruTokenCache,
  planContext,
  validateMessageOrder,
  type AlgorithmName,
  type PlanResult,
} from '../../src/domain/engine/index.js';
import { validPrefix } from '../../src/domain/engine/selection/valid-prefix.js';
import { assistant, chat, resend, system, user, words, type TestMessage } from './fixtures/conversations.js';

/** Indexes of messages sent. */
const sentIndexes = (result: PlanResult) =>
  result.plan.entries
    .filter((entry) => entry.disposition === 'keep' || entry.disposition === 'pinned')
    .map((entry) => entry.index);

/** An old message about bread, newer unrelated chatter, and a bread question. */
const breadChat: TestMessage[] = [
  user('how long should I knead bread dough'),
  assistant('knead bread dough for ten minutes until smooth'),
  ...chat(10, 12),
  user('and how long should the bread dough rise'),
];

describe('selection algorithms', () => {
  it('greedy keeps the most relevant messages first', () => {
    const result = planContext({
      messages: breadChat,
      options: { algorithm: 'greedy', weighting: 'keyword', maxTokens: 120, recent: 1 },
    });
    const sent = sentIndexes(result);
    expect(sent).toContain(1);
    expect([2, 3, 4, 5, 6, 7, 8, 9, 10, 11].some((index) => !sent.includes(index))).toBe(true);
  });

  it.each([
    [0, true],
    [50, false],
  ])('recency factor %i: the old relevant answer kept = %s', (recencyFactor, keepsOld) => {
    const result = planContext({
      messages: breadChat,
      options: { algorithm: 'recency', weighting: 'keyword', recencyFactor, maxTokens: 120, recent: 1 },
    });
    expect(sentIndexes(result).includes(1)).toBe(keepsOld);
    expect(result.plan.tokensAfter).toBeLessThanOrEqual(120);
  });

  it('dependency keeps whole turns: every kept answer comes with its question', () => {
    const messages = [...chat(20, 15), user('topic4 topic12 topic16?')];
    const result = planContext({
      messages,
      options: { algorithm: 'dependency', weighting: 'keyword', maxTokens: 200, recent: 0 },
    });
    const sent = new Set(sentIndexes(result));
    expect(sent.size).toBeGreaterThan(2);
    for (const index of sent) if (messages[index]!.role === 'assistant') expect(sent.has(index - 1)).toBe(true);
  });

  it.each(['greedy', 'recency', 'dependency', 'prefix_cache', 'cache_stable'] as AlgorithmName[])(
    '%s keeps everything when it fits',
    (algorithm) => {
      const messages = chat(8, 5);
      const result = planContext({ messages, options: { algorithm, maxTokens: 10_000 } });
      expect(result.messages).toEqual(messages);
      expect(result.plan.entries.every((entry) => entry.disposition === 'keep')).toBe(true);
    },
  );
});

describe('prefix_cache', () => {
  it.each([
    [['a', 'b', 'c'], ['a', 'b', 'c', 'd'], 3, 2],
    [['a', 'c'], ['a', 'b', 'c', 'd'], 2, 2],
    [['a', 'x', 'c'], ['a', 'b', 'c'], 1, 0],
    [['c', 'a'], ['a', 'b', 'c'], 1, 2],
    [[], ['a'], 0, -1],
  ])('validPrefix(%j, %j) = %i ending at %i', (previous, current, length, lastIndex) => {
    expect(validPrefix(previous, current)).toEqual({ length, lastIndex });
  });

  it('the prefix from the previous request matches across requests (fresh objects)', () => {
    const history = [system('sys'), ...chat(30, 20), user('q1')];
    const options = { algorithm: 'prefix_cache' as const, maxTokens: 600 };
    const first = planContext({ messages: history, options });
    const next = resend([...history, assistant('a1'), user('q2')]);
    const second = planContext({ messages: next, options, previousSequence: first.sequence });
    expect(second.plan.prefixReused).toBe(first.sequence.length);
    expect(second.sequence.slice(0, first.sequence.length)).toEqual(first.sequence);
    expect(second.plan.budget.cachedPrefixTokens).toBeGreaterThan(0);
  });

  it('an edited old message ends the reusable prefix there', () => {
    const history = [system('sys'), ...chat(6, 5), user('q1')];
    const first = planContext({ messages: history, options: { algorithm: 'prefix_cache' } });
    const edited = resend(history);
    edited[3] = user('edited text');
    const second = planContext({
      messages: edited,
      options: { algorithm: 'prefix_cache' },
      previousSequence: first.sequence,
    });
    expect(second.plan.prefixReused).toBe(3);
  });

  /**
   * Simulates `turns` turns; returns how often the cache broke: less than half of the previous
   * prompt came back as the new prompt's leading part (prefix_cache's recalled messages,
   * re-chosen every turn, sit behind the cached part and do not count).
   */
  function cacheBreaks(
    algorithm: AlgorithmName,
    turns: number,
    maxTokens: number,
  ): { breaks: number; results: PlanResult[] } {
    let messages: TestMessage[] = [system('You are helpful.'), user(`start ${words(30)}`)];
    let previous: string[] | undefined;
    let breaks = 0;
    const results: PlanResult[] = [];
    const tokenCache = new LruTokenCache();
    for (let turn = 0; turn < turns; turn += 1) {
      const result = planContext({
        messages: resend(messages),
        options: { algorithm, maxTokens, recent: 2 },
        previousSequence: previous,
        tokenCache,
        model: 'gpt-4o',
      });
      results.push(result);
      const last = results[results.length - 2];
      if (last && result.plan.budget.cachedPrefixTokens < 0.5 * last.plan.tokensAfter) breaks += 1;
      previous = result.sequence;
      messages = [
        ...messages,
        assistant(`answer ${turn} ${words(40, `t${turn}`)}`),
        user(`question ${turn + 1} ${words(30, `q${turn}`)}`),
      ];
    }
    return { breaks, results };
  }

  it('hysteresis: over many turns the cached prefix breaks rarely, and far less than with recency', () => {
    const prefix = cacheBreaks('prefix_cache', 60, 4000);
    const recency = cacheBreaks('recency', 60, 4000);
    expect(prefix.results.some((result) => result.plan.entries.some((entry) => entry.disposition === 'drop'))).toBe(
      true,
    );
    expect(prefix.breaks).toBeGreaterThan(0);
    expect(prefix.breaks).toBeLessThanOrEqual(60 / 8);
    expect(recency.breaks).toBeGreaterThan(prefix.breaks * 3);
    for (const result of prefix.results) {
      expect(result.plan.tokensAfter).toBeLessThanOrEqual(4000);
      expect(validateMessageOrder(result.messages)).toEqual([]);
    }
  });

  it('when it must trim, it trims down to trimTo × the budget in one block', () => {
    const messages = [system('s'), ...chat(40, 20), user('end')];
    const result = planContext({ messages, options: { algorithm: 'prefix_cache', maxTokens: 1000, trimTo: 0.7 } });
    expect(result.plan.tokensAfter).toBeLessThanOrEqual(700);
    const sent = sentIndexes(result).filter((index) => index > 0);
    expect(sent).toEqual(Array.from({ length: sent.length }, (_, offset) => sent[0]! + offset));
  });
});
