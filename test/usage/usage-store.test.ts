import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { openSqliteDatabase } from '../../src/state/sqlite/open-sqlite-database.js';
import { SqliteStateStore } from '../../src/state/sqlite/sqlite-state-store.js';
import { SqliteUsageStore } from '../../src/state/sqlite/sqlite-usage-store.js';
import { UsageQueryThread } from '../../src/state/sqlite/usage-query-thread.js';
import { silentLogger } from '../../src/core/util/logger.js';
import { tempDir } from '../helpers/temp-store.js';
import {
  deleteRedisPrefix,
  redisBackend,
  redisReplica,
  sqliteBackend,
  writeOlderRawEntry,
  writeOlderRedisLedger,
} from './helpers/ledger-fixtures.js';
import { usageRecord } from './helpers/usage-record.js';
import { runUsageStoreContract } from './usage-store-contract.js';

runUsageStoreContract('sqlite', sqliteBackend('eunoe-usage-store-'));

const redisUrl = inject('redisUrl');
const filePrefix = `eunoe-test-usage:${randomUUID()}:`;
const redisStore = (prefix: string) => redisReplica(redisUrl, prefix);

describe.runIf(redisUrl)('usage store on Redis', () => {
  afterAll(() => deleteRedisPrefix(redisUrl, filePrefix));

  runUsageStoreContract('redis', redisBackend(redisUrl, filePrefix));

  it('records an older Eunoe wrote (no counters) get their counters once, however many replicas start', async () => {
    const prefix = `${filePrefix}upgrade:`;
    await writeOlderRedisLedger(redisUrl, prefix, [
      usageRecord({ messageId: 'o1', cost: '0.1' }),
      usageRecord({ messageId: 'o2', cost: '0.2', time: Date.UTC(2026, 10, 6) }),
      usageRecord({ messageId: 'o3', userId: 'u2', cost: '5' }),
    ]);
    const replicas = await Promise.all([redisStore(prefix), redisStore(prefix), redisStore(prefix)]);
    try {
      await Promise.all(replicas.map((replica) => replica.backfillCounters()));
      expect(await replicas[0]!.usage.spent('u1', 'm:2026-11')).toBe('0.3');
      expect(await replicas[1]!.usage.spent('u1', 'd:2026-11-06')).toBe('0.2');
      expect(await replicas[2]!.usage.spent('u2', 'm:2026-11')).toBe('5');
      expect(await replicas[0]!.usage.record(usageRecord({ messageId: 'n1', cost: '0.05' }))).toBe(true);
      const late = await redisStore(prefix);
      expect(await late.backfillCounters()).toBeUndefined();
      await late.close();
      expect(await replicas[0]!.usage.spent('u1', 'm:2026-11')).toBe('0.35');
    } finally {
      for (const replica of replicas) await replica.close();
    }
  });

  it('a damaged entry among the older records is skipped: the others still get their counters, once', async () => {
    const prefix = `${filePrefix}damaged:`;
    await writeOlderRedisLedger(redisUrl, prefix, [usageRecord({ messageId: 'd1', cost: '0.1' })]);
    await writeOlderRawEntry(redisUrl, prefix, 'broken', '{"userId": "u1", "cost": ');
    await writeOlderRawEntry(redisUrl, prefix, 'not-an-object', '42');
    await writeOlderRedisLedger(redisUrl, prefix, [usageRecord({ messageId: 'd2', cost: '0.2' })]);
    const replica = await redisStore(prefix);
    try {
      expect(await replica.backfillCounters()).toBe(2);
      expect(await replica.usage.spent('u1', 'm:2026-11')).toBe('0.3');
      const late = await redisStore(prefix);
      expect(await late.backfillCounters()).toBeUndefined(); // done: not walked again at the next start
      await late.close();
    } finally {
      await replica.close();
    }
  });

  it('a ledger the new version wrote from its first record needs no backfill: marked done, nothing counted twice', async () => {
    const prefix = `${filePrefix}fresh:`;
    const first = await redisStore(prefix);
    try {
      expect(await first.backfillCounters()).toBeUndefined(); // an empty ledger: nothing to do, no marker
      await first.usage.record(usageRecord({ messageId: 'f1', cost: '0.5' }));
      const second = await redisStore(prefix);
      expect(await second.backfillCounters()).toBe(0); // every record already has its counters and aggregates
      await second.close();
      const third = await redisStore(prefix);
      expect(await third.backfillCounters()).toBeUndefined(); // done once, for the whole prefix
      await third.close();
      expect(await first.usage.spent('u1', 'm:2026-11')).toBe('0.5');
      const [day] = await first.usage.daily('2026-11-05', '2026-11-06', 'all');
      expect(day?.totals.records).toBe(1);
    } finally {
      await first.close();
    }
  });

  it('two replicas recording the same replies at once: every record and its spend counted once', async () => {
    const prefix = `${filePrefix}replicas:`;
    const [first, second] = await Promise.all([redisStore(prefix), redisStore(prefix)]);
    try {
      const records = Array.from({ length: 200 }, (_, index) =>
        usageRecord({ messageId: `r${index}`, cost: '0.001', time: Date.UTC(2026, 10, 9, 10) }),
      );
      const results = await Promise.all(
        records.flatMap((record) => [first.usage.record(record), second.usage.record(record)]),
      );
      expect(results.filter(Boolean)).toHaveLength(200);
      expect(await first.usage.spent('u1', 'm:2026-11')).toBe('0.2');
      expect(await second.usage.spent('u1', 'd:2026-11-09')).toBe('0.2');
      expect((await second.usage.summarize({ userId: 'u1' })).totals).toMatchObject({ records: 200, cost: '0.2' });
    } finally {
      await first.close();
      await second.close();
    }
  });
});

describe('upgrading a SQLite file from the stream ledger', () => {
  it('imports the records an older Eunoe kept in the `ledger` stream, with their spend counters, once; damaged ones are skipped', async () => {
    const { dir, remove } = tempDir('eunoe-usage-import-');
    try {
      const file = path.join(dir, 'eunoe.db');
      const old = openSqliteDatabase(file);
      old.prepare("DELETE FROM meta WHERE key = 'ledger_imported'").run();
      const insert = old.prepare('INSERT INTO streams (stream, id, time, seq, data) VALUES (?, ?, ?, ?, ?)');
      const records = [usageRecord({ messageId: 'x', cost: '0.5' }), usageRecord({ messageId: 'y', cost: '0.25' })];
      records.forEach((record, index) => {
        insert.run('ledger', record.messageId, record.time, index + 1, JSON.stringify(record));
        insert.run('ledger:user:u1', record.messageId, record.time, index + 10, JSON.stringify(record));
      });
      // Damaged entries are left behind without stopping the import (or the store from opening).
      insert.run('ledger', 'broken', 1, 20, '{"messageId": "broken", "cost": ');
      insert.run('ledger', 'no-cost', 2, 21, JSON.stringify({ messageId: 'no-cost', userId: 'u1', time: 2 }));
      old.close();
      for (let open = 0; open < 2; open++) {
        const store = new SqliteStateStore({ db: openSqliteDatabase(file), file, logger: silentLogger() });
        expect(await store.usage.spent('u1', 'm:2026-11')).toBe('0.75');
        expect((await store.usage.summarize({})).totals.records).toBe(2);
        await store.close();
      }
    } finally {
      remove();
    }
  });
});

describe('SQLite usage queries off the event loop', () => {
  it('answer in the worker thread for a large ledger, here for a small one or when the worker cannot start', async () => {
    const { dir, remove } = tempDir('eunoe-usage-thread-');
    const file = path.join(dir, 'eunoe.db');
    const db = openSqliteDatabase(file);
    const broken = new UsageQueryThread(path.join(dir, 'missing', 'no.db'));
    try {
      const working = new SqliteStateStore({ db, file, logger: silentLogger() });
      await working.usage.record(usageRecord({ messageId: 'w1', cost: '0.25' }));
      expect((await working.usage.summarize({ userId: 'u1' })).totals.cost).toBe('0.25');
      const fallback = new SqliteUsageStore(db, (step) => step(), {
        readOnly: true,
        queries: broken,
        threadMinRecords: 0,
      });
      expect((await fallback.summarize({ userId: 'u1' })).totals.cost).toBe('0.25');
      expect(broken.broken).toBe(true);
      expect((await fallback.latest({}, 10)).records.map((record) => record.messageId)).toEqual(['w1']);
      // The worker answers once the ledger is large enough (here: from the first record on).
      const thread = new UsageQueryThread(file);
      const viaWorker = new SqliteUsageStore(db, (step) => step(), {
        readOnly: true,
        queries: thread,
        threadMinRecords: 1,
      });
      try {
        expect((await viaWorker.summarize({ userId: 'u1' })).totals.cost).toBe('0.25');
        expect(thread.started).toBe(true);
        expect(thread.broken).toBe(false);
        const scanned: string[] = [];
        await viaWorker.scan({}, (chunk) => {
          scanned.push(...chunk.map((record) => record.messageId));
        });
        expect(scanned).toEqual(['w1']);
        expect((await viaWorker.latest({}, 10)).records.map((record) => record.messageId)).toEqual(['w1']);
      } finally {
        await thread.close();
      }
      // A small ledger (below QUERY_THREAD_MIN_RECORDS) is read here: no thread is started for it.
      const small = new UsageQueryThread(file);
      const here = new SqliteUsageStore(db, (step) => step(), { readOnly: true, queries: small });
      expect((await here.summarize({ userId: 'u1' })).totals.cost).toBe('0.25');
      expect(small.started).toBe(false);
      await working.close();
    } finally {
      await broken.close();
      remove();
    }
  });
});
