import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDecimal } from '../../src/domain/pricing/decimal.js';
import { coverUnpriced, type RequestEstimate } from '../../src/features/spend-limit/estimate-request-cost.js';
import { costPerToken } from '../../src/features/spend-limit/learned-costs.js';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { expectJsonError } from '../server/helpers/http.js';
import { usageRecord } from '../usage/helpers/usage-record.js';

describe("an unpriced model's learned cost per token", () => {
  it('is the highest cost per token of its replies with a reported cost, rounded up; others are left out', () => {
    const rate = costPerToken([
      // Prompt-heavy: $0.001 for 2,000 tokens = $0.0000005 per token.
      usageRecord({ promptTokens: 2000, completionTokens: 0, cost: '0.001', costSource: 'reported' }),
      // Completion-heavy: $0.004 for 500 tokens = $0.000008 per token (the highest).
      usageRecord({ promptTokens: 100, completionTokens: 400, cost: '0.004', costSource: 'reported' }),
      // Not reported by the provider, or no tokens: not evidence of the model's price.
      usageRecord({ promptTokens: 10, completionTokens: 10, cost: '5', costSource: 'estimated' }),
      usageRecord({ promptTokens: 0, completionTokens: 0, cost: '1', costSource: 'reported' }),
    ]);
    expect(rate === undefined ? undefined : formatDecimal(rate)).toBe('0.000008');
    // $1 over 3 tokens: 0.333… rounded up at the 18th decimal, never down.
    const third = costPerToken([
      usageRecord({ promptTokens: 2, completionTokens: 1, cost: '1', costSource: 'reported' }),
    ]);
    expect(third === undefined ? undefined : formatDecimal(third)).toBe('0.333333333333333334');
    expect(costPerToken([usageRecord({ cost: '0', costSource: 'unpriced' })])).toBeUndefined();
  });

  it('covers an unpriced estimate: learned rate × tokens, else the fallback, else $0; a priced one is kept', () => {
    const unpriced: RequestEstimate = {
      promptTokens: 918,
      completionTokens: 500,
      completionRule: 'max_tokens',
      cost: '0',
      costRule: 'none',
    };
    expect(coverUnpriced(unpriced, { learnedRate: 5_000_000_000_000n, fallbackUsd: 1 })).toMatchObject({
      cost: '0.00709', // 1,418 tokens × $0.000005
      costRule: 'learned',
    });
    expect(coverUnpriced(unpriced, { fallbackUsd: 0.004 })).toMatchObject({ cost: '0.004', costRule: 'fallback' });
    expect(coverUnpriced(unpriced, { fallbackUsd: 0 })).toEqual(unpriced);
    const priced: RequestEstimate = { ...unpriced, cost: '0.0073', costRule: 'price', pricedAs: 'openai/gpt-4o' };
    expect(coverUnpriced(priced, { learnedRate: 1n, fallbackUsd: 1 })).toBe(priced);
  });
});

describe('unpriced_estimate_usd: what a never-seen unpriced model holds', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime({ filters: ['spend-limit.ts', 'accounting.ts'] });
  });
  afterAll(async () => runtime?.dispose());

  const inlet = (id: string) =>
    request(runtime.app)
      .post('/spend-limit/filter/inlet')
      .set(runtime.auth)
      .send({
        user: { id: 'dee', email: 'dee@example.com', name: 'Dee', role: 'user' },
        body: {
          model: 'newco/never-seen',
          messages: [{ role: 'user', content: 'Hello there.' }],
          metadata: { chat_id: 'c1', message_id: id },
        },
      });

  it('holds the valve for each request of a model with no price and no reported cost; $0.01 fits two of $0.004', async () => {
    await request(runtime.app)
      .post('/spend-limit/valves/update')
      .set(runtime.auth)
      .send({ monthly_limit_usd: 0.01, unpriced_estimate_usd: 0.004 })
      .expect(200);
    await inlet('m1').expect(200);
    await inlet('m2').expect(200);
    expectJsonError(await inlet('m3'), 429, /has \$0\.0020 left, less than this request's estimated \$0\.0040;/);
  });
});
