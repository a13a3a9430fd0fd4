import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { unpricedView } from '../../src/features/dashboard/unpriced-view.js';
import type { UsageRecord } from '../../src/domain/usage/types.js';
import { deleteRedisPrefix, redisBackend, sqliteBackend, type UsageBackend } from '../usage/helpers/ledger-fixtures.js';
import { usageRecord } from '../usage/helpers/usage-record.js';
import { at } from './daily-contract.js';

/**
 * `GET /usage/unpriced`'s figures from a real store: the replies without a cost per model, their tokens, and an
 * estimate from the same model's cost per token on its priced or reported replies of the range.
 */
function unpricedContract(name: string, open: () => Promise<UsageBackend>) {
  describe(`unpriced replies (${name})`, () => {
    it('counts them per model from the daily aggregates, reads mixed days record by record, and estimates', async () => {
      const { store, dispose } = await open();
      try {
        const usage = store.usage!;
        let id = 0;
        const reply = (time: number, overrides: Partial<UsageRecord>) =>
          usage.record(
            usageRecord({
              messageId: `m${id++}`,
              time,
              model: 'acme/house-model',
              pricedAs: undefined,
              promptTokens: 1000,
              completionTokens: 200,
              totalTokens: 1200,
              cost: '0',
              costSource: 'unpriced',
              ...overrides,
            }),
          );
        // The 5th mixes both kinds for acme/house-model: two replies whose provider reported $0.0123 each, four
        // unpriced. A reply Open WebUI sent as `acme/house-model` that the table priced as gpt-4o belongs to gpt-4o.
        for (let n = 0; n < 2; n++) await reply(at(5, 9, n), { cost: '0.0123', costSource: 'reported' });
        for (let n = 0; n < 4; n++) await reply(at(5, 10, n), {});
        await reply(at(5, 11), { pricedAs: 'openai/gpt-4o', cost: '5', costSource: 'computed' });
        // The 6th: six more unpriced replies of it (the day is read from its aggregate), three of a model never priced.
        for (let n = 0; n < 6; n++) await reply(at(6, 10, n), {});
        for (let n = 0; n < 3; n++)
          await reply(at(6, 11, n), { model: 'acme/brand-new', promptTokens: 500, completionTokens: 50 });
        await reply(at(6, 12), { model: 'gpt-4o', pricedAs: 'openai/gpt-4o', cost: '0.01', costSource: 'computed' });

        const view = await unpricedView(usage, { from: '2026-11-05', to: '2026-11-08' });
        // $0.0246 for 2 × 1,200 tokens: $0.00001025 a token; 10 unpriced replies × 1,200 tokens = $0.123.
        expect(view.models).toEqual([
          {
            model: 'acme/house-model',
            records: 10,
            promptTokens: 10_000,
            completionTokens: 2_000,
            cachedTokens: 0,
            cacheWriteTokens: 0,
            reasoningTokens: 0,
            estimate: '0.123',
            basis: { records: 2, tokens: 2_400, cost: '0.0246' },
          },
          {
            model: 'acme/brand-new',
            records: 3,
            promptTokens: 1_500,
            completionTokens: 150,
            cachedTokens: 0,
            cacheWriteTokens: 0,
            reasoningTokens: 0,
            estimate: null,
            basis: null,
          },
        ]);
        expect(view.totals).toEqual({
          records: 13,
          promptTokens: 11_500,
          completionTokens: 2_150,
          cachedTokens: 0,
          cacheWriteTokens: 0,
          reasoningTokens: 0,
          estimate: '0.123',
          modelsWithoutEstimate: 1,
        });
        expect(view).toMatchObject({ from: '2026-11-05', to: '2026-11-08', currency: 'USD' });

        // Without the 5th, nothing in the range says what acme/house-model costs: no estimate.
        const later = await unpricedView(usage, { from: '2026-11-06', to: '2026-11-07' });
        expect(later.models.map((model) => [model.model, model.records, model.estimate])).toEqual([
          ['acme/house-model', 6, null],
          ['acme/brand-new', 3, null],
        ]);
        expect(later.totals.estimate).toBeNull();
        // A range with priced replies only lists nothing.
        const none = await unpricedView(usage, { from: '2026-11-07', to: '2026-11-30' });
        expect(none.models).toEqual([]);
        expect(none.totals).toMatchObject({ records: 0, estimate: null, modelsWithoutEstimate: 0 });
      } finally {
        await dispose();
      }
    });
  });
}

unpricedContract('sqlite', sqliteBackend('eunoe-unpriced-'));

const redisUrl = inject('redisUrl');
const prefix = `eunoe-test-unpriced:${randomUUID()}:`;
describe.runIf(redisUrl)('on Redis', () => {
  afterAll(() => deleteRedisPrefix(redisUrl, prefix));
  unpricedContract('redis', redisBackend(redisUrl, prefix));
});
