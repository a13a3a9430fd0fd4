import { describe, expect, it } from 'vitest';
import { computeCost } from '../../src/domain/pricing/compute-cost.js';
import { applyOverrides, inUtcWindow } from '../../src/domain/pricing/apply-overrides.js';
import { formatDecimal } from '../../src/domain/pricing/decimal.js';
import type { ModelPrice } from '../../src/domain/pricing/types.js';
import { docIndex } from './fixtures.js';

const index = docIndex();
const price = (id: string) => index.models[id]!;
const noon = Date.UTC(2026, 0, 1, 12, 0);
const cost = (model: ModelPrice, usage: Parameters<typeof computeCost>[1], at = noon) => {
  const value = computeCost(model, usage, at);
  return value === undefined ? undefined : formatDecimal(value);
};

describe('computeCost: worked examples on the fixture price list', () => {
  it('gpt-4o with 1024 of 1200 prompt tokens cached', () => {
    expect(cost(price('openai/gpt-4o'), { promptTokens: 1200, cachedTokens: 1024, completionTokens: 350 })).toBe(
      '0.00522',
    );
  });
  it('gpt-4o without cache', () => {
    expect(cost(price('openai/gpt-4o'), { promptTokens: 1200, completionTokens: 350 })).toBe('0.0065');
  });
  it('claude-3.5-sonnet plain', () => {
    expect(cost(price('anthropic/claude-3.5-sonnet'), { promptTokens: 1000, completionTokens: 500 })).toBe('0.0105');
  });
  it('claude-3.5-sonnet with cache read and cache write at their own prices', () => {
    expect(
      cost(price('anthropic/claude-3.5-sonnet'), {
        promptTokens: 3000,
        cachedTokens: 2048,
        cacheWriteTokens: 500,
        completionTokens: 400,
      }),
    ).toBe('0.0098454');
  });
  it('long-context override prices the whole request at the higher tier', () => {
    expect(cost(price('example/long-context'), { promptTokens: 250_000, completionTokens: 1000 })).toBe('1.27');
    expect(cost(price('example/long-context'), { promptTokens: 200_000, completionTokens: 1000 })).toBe('0.51');
  });
});

describe('computeCost: unknown prices and cached tokens', () => {
  it('a "-1" router price is unknown, never a negative cost', () => {
    expect(price('openrouter/auto').prompt).toBeUndefined();
    expect(cost(price('openrouter/auto'), { promptTokens: 1000, completionTokens: 10 })).toBeUndefined();
  });
  it('a missing completion price is unknown', () => {
    expect(cost(price('example/sparse'), { promptTokens: 10, completionTokens: 10 })).toBeUndefined();
  });
  it('cached tokens change the cost (they are read, not ignored)', () => {
    const plain = cost(price('openai/gpt-4o'), { promptTokens: 1200, completionTokens: 350 });
    const cached = cost(price('openai/gpt-4o'), { promptTokens: 1200, cachedTokens: 1024, completionTokens: 350 });
    expect(cached).not.toBe(plain);
  });
  it('free variants cost exactly zero', () => {
    expect(cost(price('meta-llama/llama-3.2-3b-instruct:free'), { promptTokens: 5000, completionTokens: 5000 })).toBe(
      '0',
    );
  });
});

describe('computeCost: extras', () => {
  const base: ModelPrice = {
    id: 'x/y',
    prompt: '0.000001',
    completion: '0.000002',
    request: '0.01',
    internalReasoning: '0.000004',
    webSearch: '0.004',
  };
  it('adds request fees, web searches and separately priced reasoning', () => {
    // 100×1e-6 + (50−20)×2e-6 + 20×4e-6 + 0.01 + 2×0.004
    expect(cost(base, { promptTokens: 100, completionTokens: 50, reasoningTokens: 20, webSearches: 2 })).toBe(
      '0.01824',
    );
  });
  it('applies the discount to the total', () => {
    expect(
      cost(
        { ...base, request: '0', internalReasoning: undefined, discount: 0.25 },
        { promptTokens: 1000, completionTokens: 1000 },
      ),
    ).toBe('0.00225');
  });
});

describe('applyOverrides', () => {
  const windowed: ModelPrice = {
    id: 'x/peak',
    prompt: '0.000001',
    completion: '0.000002',
    overrides: [
      { utc_start: 2200, utc_end: 600, prompt: '0.0000005' },
      { min_prompt_tokens: 1000, completion: '0.000003' },
      { min_prompt_tokens: 1000, utc_start: 2200, utc_end: 600, prompt: '0.0000007' },
      { min_prompt_tokens: 'bad', prompt: '9' },
    ],
  };
  it('half-open windows that wrap midnight', () => {
    expect(inUtcWindow(22 * 60, 6 * 60, 23 * 60)).toBe(true);
    expect(inUtcWindow(22 * 60, 6 * 60, 5 * 60 + 59)).toBe(true);
    expect(inUtcWindow(22 * 60, 6 * 60, 6 * 60)).toBe(false);
    expect(inUtcWindow(9 * 60, 17 * 60, 9 * 60)).toBe(true);
    expect(inUtcWindow(9 * 60, 17 * 60, 17 * 60)).toBe(false);
  });
  it('later entries win key by key; omitted keys inherit; malformed conditions never apply', () => {
    const night = Date.UTC(2026, 0, 1, 23, 30);
    expect(applyOverrides(windowed, { promptTokens: 10, at: noon })).toMatchObject({
      prompt: '0.000001',
      completion: '0.000002',
    });
    expect(applyOverrides(windowed, { promptTokens: 10, at: night })).toMatchObject({
      prompt: '0.0000005',
      completion: '0.000002',
    });
    expect(applyOverrides(windowed, { promptTokens: 1000, at: night })).toMatchObject({
      prompt: '0.0000005',
      completion: '0.000002',
    });
    expect(applyOverrides(windowed, { promptTokens: 1001, at: night })).toMatchObject({
      prompt: '0.0000007',
      completion: '0.000003',
    });
    expect(applyOverrides(windowed, { promptTokens: 1001, at: noon })).toMatchObject({
      prompt: '0.000001',
      completion: '0.000003',
    });
  });
});
