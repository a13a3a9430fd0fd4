import { describe, expect, it } from 'vitest';
import { formatUsageLine } from '../../src/domain/usage/format-usage-line.js';
import type { UsageRecord } from '../../src/domain/usage/types.js';

function record(cost: string, overrides: Partial<UsageRecord> = {}): UsageRecord {
  return {
    messageId: 'm-1',
    time: 0,
    userId: 'u-1',
    model: 'openai/gpt-4o',
    cost,
    costSource: 'computed',
    usageSource: 'reported',
    promptTokens: 1200,
    completionTokens: 350,
    cachedTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    totalTokens: 1550,
    ...overrides,
  };
}

describe('the usage line shows costs the way spend is shown everywhere', () => {
  it('4 decimals below a dollar, 2 from a dollar, $0 when free', () => {
    expect(formatUsageLine(record('0.0052'))).toBe('1,200 in · 350 out · $0.0052');
    expect(formatUsageLine(record('1.2749'))).toBe('1,200 in · 350 out · $1.27');
    expect(formatUsageLine(record('0'))).toBe('1,200 in · 350 out · $0');
  });

  it('a tiny non-zero cost shows its first digit instead of $0.0000', () => {
    expect(formatUsageLine(record('0.000003'))).toBe('1,200 in · 350 out · $0.000003');
  });

  it('marks estimates and leaves an unknown price out', () => {
    expect(formatUsageLine(record('0.0052', { usageSource: 'estimated', costSource: 'estimated' }))).toBe(
      '~1,200 in · ~350 out · ~$0.0052',
    );
    expect(formatUsageLine(record('0', { costSource: 'unpriced' }))).toBe('1,200 in · 350 out');
  });
});
