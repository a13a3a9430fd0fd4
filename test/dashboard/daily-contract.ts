import { describe, expect, it } from 'vitest';
import { formatDecimal } from '../../src/domain/pricing/decimal.js';
import type { UsageBackend } from '../usage/helpers/ledger-fixtures.js';
import { usageRecord } from '../usage/helpers/usage-record.js';

/** A time on a day of November 2026 (UTC). */
export const at = (day: number, hour = 12, minute = 0, second = 0, ms = 0) =>
  Date.UTC(2026, 10, day, hour, minute, second, ms);

/** Daily aggregates must behave the same on every backend: written with the record, exact, idempotent, UTC days. */
export function dailyContract(name: string, open: () => Promise<UsageBackend>) {
  describe(`daily aggregates (${name})`, () => {
    it('adds each record to its UTC day, its user and its priced model, exactly and once', async () => {
      const { store, dispose } = await open();
      try {
        const usage = store.usage!;
        // 23:59:59.999 belongs to the 5th, 00:00:00.000 to the 6th.
        await usage.record(usageRecord({ messageId: 'a', userId: 'ann', cost: '0.1', time: at(5, 23, 59, 59, 999) }));
        await usage.record(
          usageRecord({ messageId: 'b', userId: 'bob', cost: '0.2', time: at(6, 0), model: 'x', pricedAs: undefined }),
        );
        await usage.record(
          usageRecord({ messageId: 'c', userId: 'ann', cost: '1234.000000000000000007', time: at(6, 9) }),
        );
        await usage.record(usageRecord({ messageId: 'a', userId: 'ann', cost: '99', time: at(6, 10) })); // repeat
        await usage.record(
          usageRecord({ messageId: 'd', userId: 'ann', cost: '0', costSource: 'unpriced', time: at(7, 1) }),
        );

        const all = await usage.daily('2026-11-05', '2026-11-08', 'all');
        expect(all.map((row) => [row.day, row.totals.records, formatDecimal(row.totals.cost)])).toEqual([
          ['2026-11-05', 1, '0.1'],
          ['2026-11-06', 2, '1234.200000000000000007'],
          ['2026-11-07', 1, '0'],
        ]);
        expect(all[2]!.totals.unpriced).toBe(1);
        expect(all[1]!.totals).toMatchObject({ promptTokens: 200, completionTokens: 20, totalTokens: 220 });

        const users = await usage.daily('2026-11-06', '2026-11-07', 'user');
        expect(users.map((row) => [row.key, formatDecimal(row.totals.cost)])).toEqual([
          ['ann', '1234.000000000000000007'],
          ['bob', '0.2'],
        ]);
        const models = await usage.daily('2026-11-05', '2026-11-07', 'model');
        expect(models.map((row) => [row.day, row.key, row.totals.records])).toEqual([
          ['2026-11-05', 'openai/gpt-4o', 1],
          ['2026-11-06', 'openai/gpt-4o', 1],
          ['2026-11-06', 'x', 1],
        ]);
        expect(await usage.daily('2026-11-08', '2026-11-30', 'all')).toEqual([]);
        expect(await usage.daily('2026-11-06', '2026-11-06', 'all')).toEqual([]);
      } finally {
        await dispose();
      }
    });
  });
}
