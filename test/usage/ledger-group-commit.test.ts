import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLedger } from '../../src/runtime/usage/ledger.js';
import type { StateStore } from '../../src/state/types.js';
import { sqliteStore, tempSqliteStore } from '../helpers/temp-store.js';
import { usageRecord } from './helpers/usage-record.js';

const EVER = [0, Date.UTC(2030, 0, 1)] as const;

const disposers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(disposers.splice(0).map((dispose) => dispose()));
});

async function freshStore(): Promise<{ store: StateStore; dir: string }> {
  const { store, dir, dispose } = await tempSqliteStore('eunoe-group-commit-');
  disposers.push(dispose);
  return { store, dir };
}

describe('records of one event-loop turn share one SQLite transaction', () => {
  it('fifty records sent at once are all written, each caller told its own outcome (a repeated id: false)', async () => {
    const { store } = await freshStore();
    const ledger = createLedger(store);
    const outcomes = await Promise.all([
      ...Array.from({ length: 50 }, (_, index) =>
        ledger.record(usageRecord({ messageId: `m${index}`, userId: `u${index % 5}`, cost: '0.01' })),
      ),
      ledger.record(usageRecord({ messageId: 'm7', cost: '9' })),
    ]);
    expect(outcomes.slice(0, 50).every((written) => written)).toBe(true);
    expect(outcomes[50]).toBe(false);
    expect(await ledger.list({})).toHaveLength(50);
    expect(await ledger.spent('u0', ...EVER)).toBe('0.1');
    const daily = await store.usage!.daily('2026-11-05', '2026-11-06', 'user');
    expect(daily.map((row) => [row.key, row.totals.records])).toEqual([
      ['u0', 10],
      ['u1', 10],
      ['u2', 10],
      ['u3', 10],
      ['u4', 10],
    ]);
  });

  it('a read right after a record, before its promise settled, already sees it', async () => {
    const { store } = await freshStore();
    const ledger = createLedger(store);
    const pending = ledger.record(usageRecord({ messageId: 'a', cost: '0.25' }));
    // The record's UTC day: read from the day's spend counter (what a spend limit checks).
    expect(await ledger.spent('u1', Date.UTC(2026, 10, 5), Date.UTC(2026, 10, 6))).toBe('0.25');
    expect(await ledger.spent('u1', ...EVER)).toBe('0.25');
    expect((await ledger.list({})).map((record) => record.messageId)).toEqual(['a']);
    expect(await pending).toBe(true);
  });

  it('one unwritable record fails alone: the others of its turn are written, it waits in the journal', async () => {
    const { store } = await freshStore();
    const ledger = createLedger(store);
    const unwritable = usageRecord({ messageId: 'bad', model: { not: 'a string' } as unknown as string });
    const outcomes = await Promise.allSettled([
      ledger.record(usageRecord({ messageId: 'before' })),
      ledger.record(unwritable),
      ledger.record(usageRecord({ messageId: 'after' })),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    expect((await ledger.list({})).map((record) => record.messageId).sort()).toEqual(['after', 'before']);
    expect(store.health()).toMatchObject({ ok: false, queued: 1 });
  });

  it('a store closed in the same turn as a record still writes it (found after reopening the file)', async () => {
    const { store, dir } = await freshStore();
    const recorded = createLedger(store).record(usageRecord({ messageId: 'last-one', cost: '1.5' }));
    await store.close();
    expect(await recorded).toBe(true);
    const reopened = await sqliteStore(path.join(dir, 'state.db'));
    disposers.push(() => reopened.close());
    const ledger = createLedger(reopened);
    expect((await ledger.list({})).map((record) => record.messageId)).toEqual(['last-one']);
    expect(await ledger.spent('u1', ...EVER)).toBe('1.5');
  });
});
