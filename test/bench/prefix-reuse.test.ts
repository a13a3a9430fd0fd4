import { describe, expect, it } from 'vitest';
import { GPT_4O_PRICES, promptCost } from '../../bench/lib/cache-cost.js';
import { commonPrefixLength, openAiCachedTokens, prefixTokens } from '../../bench/lib/prefix-reuse.js';

const system = { role: 'system' as const, content: 's' };
const a = { role: 'user' as const, content: 'a' };
const b = { role: 'assistant' as const, content: 'b' };
const c = { role: 'user' as const, content: 'c' };

describe('prefix reuse', () => {
  it('counts the leading messages two requests share', () => {
    expect(commonPrefixLength([system, a, b], [system, a, b, c])).toBe(3);
    expect(commonPrefixLength([system, a, b], [system, b, c])).toBe(1);
    expect(commonPrefixLength([system, a], [{ ...system, content: 'other' }, a])).toBe(0);
  });

  it('sums the tokens of the shared prefix and applies the 1,024/128 cache rule', () => {
    expect(prefixTokens([10, 20, 30], 2)).toBe(30);
    expect(openAiCachedTokens(1000)).toBe(0);
    expect(openAiCachedTokens(1300)).toBe(1280);
  });

  it('prices cached tokens at the cache-read rate', () => {
    expect(promptCost(1_000_000, 0, GPT_4O_PRICES)).toBeCloseTo(2.5);
    expect(promptCost(1_000_000, 1_000_000, GPT_4O_PRICES)).toBeCloseTo(1.25);
    expect(promptCost(1_000_000, 400_000, GPT_4O_PRICES)).toBeCloseTo(0.6 * 2.5 + 0.4 * 1.25);
  });
});
