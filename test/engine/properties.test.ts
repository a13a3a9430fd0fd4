import { describe, expect, it } from 'vitest';
import { LruTokenCache, planContext, validateMessageOrder, type PlanResult } from '../../src/domain/engine/index.js';
import { prng } from './fixtures/conversations.js';
import { randomConversation, randomOptions } from './fixtures/random-conversation.js';

const SEEDS = Array.from({ length: 6 }, (_, index) => 1000 + index * 7919);
const PER_SEED = 60;
const MANDATORY = /^(system|last user|current turn|recent|pinned|kept by tag)/;

/** Checks every promise planContext makes about one result. */
function checkInvariants(messages: unknown[], result: PlanResult) {
  const { plan } = result;
  expect(plan.entries.length).toBe(messages.length);
  expect(validateMessageOrder(result.messages)).toEqual([]);
  const sent = plan.entries.filter((entry) => entry.disposition === 'keep' || entry.disposition === 'pinned');
  // The messages sent are the kept input objects; in input order, except that prefix_cache and cache_stable
  // may send recalled older messages after the kept history, just before the current turn.
  const order = result.messages.map((message) => messages.indexOf(message));
  expect([...order].sort((a, b) => a - b)).toEqual(sent.map((entry) => entry.index));
  expect(result.sequence).toEqual(order.map((index) => plan.entries[index]!.id));
  const lastUserIndex = messages.map((message) => (message as { role?: string }).role).lastIndexOf('user');
  const descents = order.filter((index, position) => position > 0 && index < order[position - 1]!).length;
  if (plan.algorithm !== 'prefix_cache' && plan.algorithm !== 'cache_stable') expect(descents).toBe(0);
  else {
    expect(descents).toBeLessThanOrEqual(1);
    const turn = order.filter((index) => index >= lastUserIndex);
    if (lastUserIndex >= 0) expect(order.slice(order.length - turn.length)).toEqual(turn);
  }
  expect(plan.tokensAfter).toBe(
    sent.reduce((sum, entry) => sum + entry.tokens, 0) + 3 + plan.budget.summaryReserveTokens,
  );
  const limit = plan.budget.limitTokens;
  expect(plan.overBudget).toBe(limit > 0 && plan.tokensAfter > limit);
  if (plan.overBudget) {
    expect(sent.every((entry) => MANDATORY.test(entry.reason))).toBe(true);
    expect(plan.budget.summaryReserveTokens).toBe(0);
  }
  const lastUser = messages.map((message) => (message as { role?: string }).role).lastIndexOf('user');
  if (lastUser >= 0) expect(result.messages).toContain(messages[lastUser]);
  if (plan.summaryRanges.length > 0) expect(plan.entries.some((entry) => entry.disposition === 'summarize')).toBe(true);
}

describe('properties over random conversations', () => {
  it.each(SEEDS)('seed %i: outputs are valid, within budget or flagged, and deterministic', (seed) => {
    const random = prng(seed);
    const cache = new LruTokenCache();
    const seen = { overBudget: 0, trimmed: 0, summarized: 0, orphans: 0, toolBlocks: 0 };
    for (let run = 0; run < PER_SEED; run += 1) {
      const messages = randomConversation(random);
      const options = randomOptions(random);
      const result = planContext({ messages, options, model: run % 2 ? 'gpt-4o' : 'gpt-4', tokenCache: cache });
      checkInvariants(messages, result);
      seen.overBudget += Number(result.plan.overBudget);
      seen.trimmed += Number(result.plan.entries.some((entry) => entry.reason === 'over budget'));
      seen.summarized += Number(result.plan.summaryRanges.length > 0);
      seen.orphans += Number(result.plan.entries.some((entry) => entry.reason.includes('orphan')));
      seen.toolBlocks += Number(
        (result.messages as Array<{ role?: string }>).some((message) => message.role === 'tool'),
      );
      const again = planContext({
        messages: JSON.parse(JSON.stringify(messages)) as unknown[],
        options,
        model: run % 2 ? 'gpt-4o' : 'gpt-4',
      });
      expect({ ...again.plan, tokenCacheHits: 0 }).toEqual({ ...result.plan, tokenCacheHits: 0 });
    }
    // The generator must actually reach the interesting cases, or the invariants prove little.
    Object.values(seen).forEach((count) => expect(count).toBeGreaterThan(0));
  });

  it.each(SEEDS.slice(0, 3))('seed %i: a growing chat with prefix_cache stays valid turn after turn', (seed) => {
    const random = prng(seed);
    const messages = randomConversation(random);
    let previous: string[] | undefined;
    for (let cut = 1; cut <= messages.length; cut += 1) {
      const slice = messages.slice(0, cut);
      const result = planContext({
        messages: slice,
        options: { algorithm: 'prefix_cache', maxTokens: 400 },
        previousSequence: previous,
      });
      checkInvariants(slice, result);
      previous = result.sequence;
    }
  });
});
