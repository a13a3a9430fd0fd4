import { describe, expect, it } from 'vitest';
import { planContext, validateMessageOrder } from '../../src/domain/engine/index.js';
import { summaryRanges } from '../../src/domain/engine/summarize/summary-ranges.js';
import {
  SUMMARY_BUDGET_SHARE,
  SUMMARY_OVERHEAD_TOKENS,
  summaryReserve,
} from '../../src/domain/engine/summarize/summary-reserve.js';
import { chat, system, user, words } from './fixtures/conversations.js';
import { linearPricing } from './fixtures/linear-pricing.js';

const pricing = linearPricing({ 'openai/gpt-4o': { prompt: 1, completion: 4, cached: 0.1, contextLength: 2000 } });
const long = [system('You are helpful.'), ...chat(40, 20), user('last question')];

describe('cost budget', () => {
  it('without pricing the plan says the cost budget is inactive', () => {
    const result = planContext({ messages: long, model: 'openai/gpt-4o', options: { maxCostUsd: 0.0001 } });
    expect(result.plan.notes.join(' ')).toMatch(/cost budget inactive/);
    expect(result.messages.length).toBe(long.length);
  });

  it('an unpriced model is noted as such', () => {
    const result = planContext({ messages: long, model: 'unknown/model', pricing, options: { maxCostUsd: 0.0001 } });
    expect(result.plan.notes.join(' ')).toMatch(/no price for model unknown\/model/);
  });

  it.each([0.0002, 0.0005, 0.001])('a cost limit of $%s trims like a token limit', (maxCostUsd) => {
    const result = planContext({ messages: long, model: 'openai/gpt-4o', pricing, options: { maxCostUsd } });
    const tokens = Math.floor(maxCostUsd * 1e6);
    expect(result.plan.budget.costLimitTokens).toBe(tokens);
    expect(result.plan.tokensAfter).toBeLessThanOrEqual(tokens);
    expect(Number(result.plan.budget.estimatedCostUsd)).toBeLessThanOrEqual(maxCostUsd);
  });

  it('expected completion tokens shrink the cost limit and enter the estimate', () => {
    const without = planContext({ messages: long, model: 'openai/gpt-4o', pricing, options: { maxCostUsd: 0.0005 } });
    const withReply = planContext({
      messages: long,
      model: 'openai/gpt-4o',
      pricing,
      options: { maxCostUsd: 0.0005, expectedCompletionTokens: 50 },
    });
    expect(withReply.plan.budget.costLimitTokens).toBe(without.plan.budget.costLimitTokens! - 200);
    expect(Number(withReply.plan.budget.estimatedCostUsd)).toBeLessThanOrEqual(0.0005);
  });

  it('the cost estimate accounts for the prompt-cached prefix', () => {
    const options = { algorithm: 'prefix_cache' as const };
    const first = planContext({ messages: long, model: 'openai/gpt-4o', pricing, options });
    const again = planContext({
      messages: long,
      model: 'openai/gpt-4o',
      pricing,
      options,
      previousSequence: first.sequence,
    });
    expect(again.plan.budget.cachedPrefixTokens).toBe(again.plan.tokensAfter - 3);
    expect(Number(again.plan.budget.estimatedCostUsd)).toBeLessThan(Number(first.plan.budget.estimatedCostUsd));
  });
});

describe('token budgets', () => {
  it.each([
    [0.5, 1000],
    [0.25, 500],
  ])('contextFraction %s of a 2000-token model limits to %i', (contextFraction, limit) => {
    const result = planContext({ messages: long, model: 'openai/gpt-4o', pricing, options: { contextFraction } });
    expect(result.plan.budget.limitTokens).toBe(limit);
    expect(result.plan.tokensAfter).toBeLessThanOrEqual(limit);
  });

  it('contextFraction without a known context length is noted and inactive', () => {
    const result = planContext({ messages: long, model: 'x/unknown', pricing, options: { contextFraction: 0.5 } });
    expect(result.plan.budget.limitTokens).toBe(0);
    expect(result.plan.notes.join(' ')).toMatch(/context length/);
  });

  it('the smallest of token, cost and context limits wins', () => {
    const result = planContext({
      messages: long,
      model: 'openai/gpt-4o',
      pricing,
      options: { maxTokens: 900, contextFraction: 0.4, maxCostUsd: 0.001 },
    });
    expect(result.plan.budget.limitTokens).toBe(800);
  });

  it.each([200, 400, 800])('soft target %i: aimed for, never flagged as over budget', (targetTokens) => {
    const result = planContext({ messages: long, options: { targetTokens, maxTokens: 5000 } });
    expect(result.plan.tokensAfter).toBeLessThanOrEqual(targetTokens);
    expect(result.plan.overBudget).toBe(false);
    const tight = planContext({
      messages: [user(words(200)), user(words(200))],
      options: { targetTokens: 10, maxTokens: 5000 },
    });
    expect(tight.plan.tokensAfter).toBeGreaterThan(10);
    expect(tight.plan.overBudget).toBe(false);
  });
});

describe('summarization', () => {
  it.each([
    [0, 0.3, 100, 0],
    [100, 0.3, 1000, 30 + SUMMARY_OVERHEAD_TOKENS],
    [101, 0.3, 1000, 31 + SUMMARY_OVERHEAD_TOKENS],
    [10_000, 0.3, 500, 500 + SUMMARY_OVERHEAD_TOKENS],
  ])('summaryReserve(%i tokens, ratio %s, cap %i) = %i', (tokens, ratio, cap, expected) => {
    expect(summaryReserve(tokens, ratio, cap)).toBe(expected);
  });

  it.each([200, 300, 500])('the summary block is reserved in a budget of %i', (maxTokens) => {
    const messages = [...chat(28, 10), user('now')];
    const result = planContext({ messages, options: { maxTokens, summarize: true, recent: 1 } });
    const summarized = result.plan.entries.filter((entry) => entry.disposition === 'summarize');
    const reserve = result.plan.budget.summaryReserveTokens;
    expect(summarized.length).toBeGreaterThan(0);
    expect(reserve).toBeGreaterThan(0);
    expect(reserve).toBeLessThanOrEqual(
      summaryReserve(
        summarized.reduce((sum, entry) => sum + entry.tokens, 0),
        0.3,
        2048,
      ),
    );
    expect(reserve).toBeLessThanOrEqual(maxTokens * SUMMARY_BUDGET_SHARE);
    const sent = result.plan.entries.filter((entry) => entry.disposition === 'keep' || entry.disposition === 'pinned');
    expect(result.plan.tokensAfter).toBe(sent.reduce((sum, entry) => sum + entry.tokens, 0) + 3 + reserve);
    expect(result.plan.tokensAfter).toBeLessThanOrEqual(maxTokens);
    expect(result.plan.overBudget).toBe(false);
  });

  it('budget 60 with 28 overflow messages stays within 60 (no room for a summary: dropped, noted)', () => {
    const messages = [...chat(28, 10), user('now')];
    const result = planContext({ messages, options: { maxTokens: 60, summarize: true, recent: 1 } });
    expect(result.plan.tokensAfter).toBeLessThanOrEqual(60);
    expect(result.plan.entries.some((entry) => entry.disposition === 'summarize')).toBe(false);
    expect(result.plan.notes.join(' ')).toMatch(/no room left for a summary/);
  });

  it('the summary reserve is capped by summaryMaxTokens', () => {
    const result = planContext({ messages: long, options: { maxTokens: 300, summarize: true, summaryMaxTokens: 40 } });
    expect(result.plan.budget.summaryReserveTokens).toBe(40 + SUMMARY_OVERHEAD_TOKENS);
    expect(result.plan.tokensAfter).toBeLessThanOrEqual(300);
  });

  it('without a summarizer over-budget messages are dropped, not summarized', () => {
    const result = planContext({ messages: long, options: { maxTokens: 300 } });
    expect(result.plan.entries.some((entry) => entry.disposition === 'summarize')).toBe(false);
    expect(result.plan.budget.summaryReserveTokens).toBe(0);
  });

  it('summary ranges cover exactly the summarized messages, in contiguous runs', () => {
    const ids = planContext({ messages: long }).plan.entries.map((entry) => entry.id);
    const result = planContext({
      messages: long,
      options: { maxTokens: 400, summarize: true, algorithm: 'greedy', weighting: 'static' },
      marks: { [ids[10]!]: { pinned: true } },
    });
    const ranges = result.plan.summaryRanges;
    expect(ranges.length).toBeGreaterThan(1);
    expect(ranges.flatMap((range) => range.ids)).toEqual(
      result.plan.entries.filter((entry) => entry.disposition === 'summarize').map((entry) => entry.id),
    );
    for (const range of ranges) {
      const inside = result.plan.entries.slice(range.fromIndex, range.toIndex + 1);
      expect(inside.every((entry) => entry.disposition === 'summarize' || entry.role === 'system')).toBe(true);
    }
    expect(validateMessageOrder(result.messages)).toEqual([]);
  });

  it('summaryRanges skips over system messages inside a run', () => {
    const entry = (index: number, role: string, disposition: 'keep' | 'summarize') => ({
      index,
      id: `m${index}`,
      role,
      disposition,
      weight: 1,
      tokens: 5,
      reason: '',
      cause: 'budget' as const,
    });
    expect(
      summaryRanges([
        entry(0, 'user', 'summarize'),
        entry(1, 'system', 'keep'),
        entry(2, 'assistant', 'summarize'),
        entry(3, 'user', 'keep'),
      ]),
    ).toEqual([{ fromIndex: 0, toIndex: 2, ids: ['m0', 'm2'], tokens: 10 }]);
  });
});
