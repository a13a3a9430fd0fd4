import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/core/errors/index.js';
import { add, formatDecimal, parseDecimal } from '../../src/domain/pricing/decimal.js';
import type { StateStore } from '../../src/state/types.js';
import { createLedger } from '../../src/runtime/usage/ledger.js';
import type { UsageRecord } from '../../src/domain/usage/types.js';
import { SUMMARY_CHUNK, USAGE_CHUNK } from '../../src/domain/usage/usage-store.js';
import type { UsageBackend } from './helpers/ledger-fixtures.js';
import { usageRecord } from './helpers/usage-record.js';

/** Behaviour every backend's ledger must have: atomic idempotent counters, exact store-side totals, paging. */
export function runUsageStoreContract(name: string, open: () => Promise<UsageBackend>) {
  const withStore = (test: (store: StateStore) => Promise<void>) => async () => {
    const { store, dispose } = await open();
    try {
      await test(store);
    } finally {
      await dispose();
    }
  };
  const nov = (day: number, hour = 12) => Date.UTC(2026, 10, day, hour);
  const exactSum = (records: UsageRecord[]) =>
    formatDecimal(add(...records.map((record) => parseDecimal(record.cost) ?? 0n)));

  describe(`usage store (${name})`, () => {
    it(
      'keeps day and month spend counters with the record, exactly, and a repeated message id adds nothing',
      withStore(async (store) => {
        const usage = store.usage!;
        expect(await usage.record(usageRecord({ messageId: 'a', cost: '0.1', time: nov(5) }))).toBe(true);
        expect(await usage.record(usageRecord({ messageId: 'b', cost: '0.2', time: nov(5, 23) }))).toBe(true);
        expect(await usage.record(usageRecord({ messageId: 'c', cost: '1234.000000000000000007', time: nov(6) }))).toBe(
          true,
        );
        expect(await usage.record(usageRecord({ messageId: 'a', cost: '99', time: nov(7) }))).toBe(false);
        expect(await usage.spent('u1', 'd:2026-11-05')).toBe('0.3');
        expect(await usage.spent('u1', 'd:2026-11-06')).toBe('1234.000000000000000007');
        expect(await usage.spent('u1', 'd:2026-11-07')).toBe('0');
        expect(await usage.spent('u1', 'm:2026-11')).toBe('1234.300000000000000007');
        expect(await usage.spent('u2', 'm:2026-11')).toBe('0');
        const ledger = createLedger(store);
        expect(await ledger.spent('u1', Date.UTC(2026, 10, 1), Date.UTC(2026, 11, 1))).toBe('1234.300000000000000007');
        expect(await ledger.spent('u1', nov(5, 20), nov(6, 13))).toBe('1234.200000000000000007'); // arbitrary window: aggregated
      }),
    );

    it(
      'many concurrent writes of the same message ids count each once',
      withStore(async (store) => {
        const usage = store.usage!;
        const ids = Array.from({ length: 30 }, (_, index) => `m${index % 10}`);
        const results = await Promise.all(
          ids.map((id) => usage.record(usageRecord({ messageId: id, cost: '0.01', time: nov(9) }))),
        );
        expect(results.filter(Boolean)).toHaveLength(10);
        expect(await usage.spent('u1', 'd:2026-11-09')).toBe('0.1');
        expect((await usage.summarize({})).totals).toMatchObject({ records: 10, cost: '0.1' });
      }),
    );

    it(
      'aggregates in the store across many chunks: totals and groups equal the exact sums of the records',
      withStore(async (store) => {
        const usage = store.usage!;
        const records: UsageRecord[] = [];
        const count = Math.max(SUMMARY_CHUNK, USAGE_CHUNK * 3) + 123;
        for (let index = 0; index < count; index++) {
          records.push(
            usageRecord({
              messageId: `r${index}`,
              userId: index % 3 === 0 ? 'alice' : 'bob',
              time: nov(1 + (index % 4), index % 24),
              model: index % 2 ? 'claude' : 'gpt-4o',
              pricedAs: index % 2 ? 'anthropic/claude-3.5-sonnet' : undefined,
              chatId: `c${index % 5}`,
              cost: `0.0000${(index % 97) + 1}1`,
              promptTokens: index,
              costSource: index % 10 === 0 ? 'estimated' : 'computed',
            }),
          );
        }
        for (let start = 0; start < records.length; start += 200)
          await Promise.all(records.slice(start, start + 200).map((record) => usage.record(record)));
        const all = await usage.summarize({});
        expect(all.totals).toMatchObject({
          records: count,
          cost: exactSum(records),
          promptTokens: (count * (count - 1)) / 2,
          estimated: records.filter((record) => record.costSource === 'estimated').length,
        });
        const byUser = await usage.summarize({}, 'user');
        expect(byUser.groups!.map((group) => [group.key, group.records, group.cost])).toEqual(
          ['alice', 'bob'].map((user) => {
            const mine = records.filter((record) => record.userId === user);
            return [user, mine.length, exactSum(mine)];
          }),
        );
        const byModel = await usage.summarize({ userId: 'alice' }, 'model');
        expect(byModel.groups!.map((group) => group.key)).toEqual(['anthropic/claude-3.5-sonnet', 'gpt-4o']);
        const byDay = await usage.summarize({ chatId: 'c1', from: nov(2, 0), to: nov(4, 0) }, 'day');
        const expected = records.filter(
          (record) => record.chatId === 'c1' && record.time >= nov(2, 0) && record.time < nov(4, 0),
        );
        expect(byDay.groups!.map((group) => group.key)).toEqual(['2026-11-02', '2026-11-03']);
        expect(byDay.totals).toMatchObject({ records: expected.length, cost: exactSum(expected) });
        const byName = await usage.summarize({ model: 'anthropic/claude-3.5-sonnet', userId: 'bob' });
        expect(byName.totals.records).toBe(
          records.filter((record) => record.userId === 'bob' && record.model === 'claude').length,
        );
      }),
    );

    it(
      'pages the newest records with a cursor, through ties in time, and scans them all oldest first',
      withStore(async (store) => {
        const usage = store.usage!;
        const records = Array.from({ length: 23 }, (_, index) =>
          usageRecord({
            messageId: `p${index}`,
            time: nov(10, Math.floor(index / 5)),
            chatId: index % 2 ? 'odd' : 'even',
          }),
        );
        for (const record of records) await usage.record(record);
        const seen: string[] = [];
        let before: string | undefined;
        for (let pages = 0; pages < 20; pages++) {
          const page = await usage.latest({ chatId: 'odd' }, 3, before);
          seen.unshift(...page.records.map((record) => record.messageId));
          if (!page.more) break;
          before = page.before;
        }
        expect(seen).toEqual(records.filter((record) => record.chatId === 'odd').map((record) => record.messageId));
        const scanned: string[] = [];
        await usage.scan(
          { from: nov(10, 1), to: nov(10, 3) },
          (chunk) => void scanned.push(...chunk.map((record) => record.messageId)),
        );
        expect(scanned).toEqual(records.slice(5, 15).map((record) => record.messageId));
        await expect(usage.latest({}, 3, 'not-a-cursor')).rejects.toBeInstanceOf(ValidationError);
      }),
    );
  });
}
