import type { UsageRecord } from '../../../src/domain/usage/types.js';

/** A valid ledger record with overrides. */
export function usageRecord(overrides: Partial<UsageRecord> = {}): UsageRecord {
  return {
    messageId: 'm1',
    time: Date.UTC(2026, 10, 5, 12),
    userId: 'u1',
    model: 'gpt-4o',
    pricedAs: 'openai/gpt-4o',
    promptTokens: 100,
    completionTokens: 10,
    cachedTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    totalTokens: 110,
    cost: '0.00035',
    costSource: 'computed',
    usageSource: 'reported',
    ...overrides,
  };
}
