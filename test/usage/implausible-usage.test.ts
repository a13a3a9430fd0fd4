import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { compare, decimalOf, parseDecimal } from '../../src/domain/pricing/decimal.js';
import { USAGE_BOUNDS } from '../../src/domain/usage/normalize-usage.js';
import type { UsageRecord } from '../../src/domain/usage/types.js';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';

/**
 * Usage an upstream (or a caller of the outlet) reports out of all plausible bounds: the outlet answers 200 and the
 * record is written, with the absurd field refused, replaced and listed in `rejectedUsage`, on both backends.
 */
const redisUrl = inject('redisUrl');
const backends: Array<[string, () => Record<string, string> | undefined]> = [
  ['SQLite', () => ({})],
  [
    'Redis',
    () => (redisUrl ? { REDIS_URL: redisUrl, REDIS_PREFIX: `eunoe-usage-bounds:${randomUUID()}:` } : undefined),
  ],
];

describe.each(backends)('implausible usage on %s: answered and recorded, the absurd field refused', (_name, env) => {
  const settings = env();
  let runtime: TestRuntime;
  const user = { id: 'u-bounds', email: 'b@example.com', name: 'B', role: 'user' };

  beforeAll(async () => {
    if (!settings) return;
    runtime = await createTestRuntime({ filters: ['accounting.ts'], env: settings });
  });
  afterAll(async () => {
    await runtime?.dispose();
  });

  const outlet = async (id: string, usage: Record<string, unknown>) => {
    const body = {
      model: 'openai/gpt-4o',
      messages: [
        { id: `u-${id}`, role: 'user', content: 'What is the capital of France?' },
        { id, role: 'assistant', content: 'Paris is the capital of France.', usage },
      ],
      chat_id: 'c-bounds',
      id,
    };
    const response = await request(runtime.app)
      .post('/accounting/filter/outlet')
      .set(runtime.auth)
      .send({ body, user })
      .expect(200);
    expect(response.body.messages[1].content).toContain('Paris');
    const records = await runtime.services.ledger!.list({ userId: user.id });
    const record = records.find((entry) => entry.messageId === id);
    expect(record, `record ${id} is in the ledger`).toBeDefined();
    return record as UsageRecord;
  };
  const below = (cost: string, usd: number) => compare(parseDecimal(cost) ?? 0n, decimalOf(usd)) < 0;

  it.runIf(settings)('prompt_tokens 1e20: recorded with the tokenizer estimate instead, marked', async () => {
    const record = await outlet('a-huge-prompt', { prompt_tokens: 1e20, completion_tokens: 8 });
    expect(record.rejectedUsage).toEqual([
      { field: 'prompt_tokens', part: 'promptTokens', value: '100000000000000000000', reason: 'above the bound' },
    ]);
    expect(record.promptTokens).toBeGreaterThan(0);
    expect(record.promptTokens).toBeLessThan(100);
    expect(record.completionTokens).toBe(8);
    expect(record.totalTokens).toBe(record.promptTokens + 8);
    expect(record.usageSource).toBe('estimated');
    expect(record.costSource).toBe('computed');
    expect(below(record.cost, 0.01)).toBe(true);
  });

  it.runIf(settings)('usage.cost "1e9": priced from the table instead of a billion dollars, marked', async () => {
    const record = await outlet('a-billion', { prompt_tokens: 1200, completion_tokens: 350, cost: '1e9' });
    expect(record.rejectedUsage).toEqual([{ field: 'cost', part: 'cost', value: '1e9', reason: 'above the bound' }]);
    expect(record.costSource).toBe('computed');
    expect(record.promptTokens).toBe(1200);
    expect(record.usageSource).toBe('reported');
    expect(below(record.cost, 1)).toBe(true);
    expect(below(record.cost, 0.000001)).toBe(false);
  });

  it.runIf(settings)('negative, non-finite and non-numeric fields are refused the same way', async () => {
    const record = await outlet('a-junk', {
      prompt_tokens: 40,
      completion_tokens: -3,
      total_tokens: '1e400',
      prompt_tokens_details: { cached_tokens: 'lots' },
      cost: -2,
    });
    expect(record.rejectedUsage?.map(({ field, reason }) => [field, reason])).toEqual([
      ['cost', 'negative'],
      ['completion_tokens', 'negative'],
      ['prompt_tokens_details.cached_tokens', 'not a number'],
      ['total_tokens', 'not finite'],
    ]);
    expect(record.promptTokens).toBe(40);
    expect(record.completionTokens).toBeGreaterThan(0);
    expect(record.cachedTokens).toBe(0);
    expect(record.totalTokens).toBe(40 + record.completionTokens);
  });

  // Source: issue #32 item 6 (5,000,000 cached tokens on a 10-token prompt was billed $6.25).
  it.runIf(settings)('more cached tokens than the prompt: refused, marked, priced without them', async () => {
    const record = await outlet('a-cached-beyond-prompt', {
      prompt_tokens: 10,
      completion_tokens: 5,
      total_tokens: 15,
      prompt_tokens_details: { cached_tokens: 5_000_000 },
    });
    expect(record.rejectedUsage).toEqual([
      {
        field: 'prompt_tokens_details.cached_tokens',
        part: 'cachedTokens',
        value: '5000000',
        reason: 'more than the prompt',
      },
    ]);
    expect(record).toMatchObject({ promptTokens: 10, cachedTokens: 0, usageSource: 'reported', cost: '0.000075' });
  });

  it.runIf(settings)("the user's spend is the sum of plausible costs only", async () => {
    const spent = await runtime.services.ledger!.spent(user.id, 0, Date.now() + 60_000);
    expect(below(spent, 1)).toBe(true);
    expect(USAGE_BOUNDS.costUsd).toBe(1000);
  });
});
