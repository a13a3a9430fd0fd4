import { randomUUID } from 'node:crypto';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { migrations, runMigrations } from '../../src/state/sqlite/migrations.js';
import { openSqliteDatabase } from '../../src/state/sqlite/open-sqlite-database.js';
import { SqliteStateStore } from '../../src/state/sqlite/sqlite-state-store.js';
import { formatDecimal } from '../../src/domain/pricing/decimal.js';
import { silentLogger } from '../../src/core/util/logger.js';
import { tempDir } from '../helpers/temp-store.js';
import {
  deleteRedisPrefix,
  redisBackend,
  redisReplica,
  sqliteBackend,
  writeOlderRedisLedger,
} from '../usage/helpers/ledger-fixtures.js';
import { usageRecord } from '../usage/helpers/usage-record.js';
import { at, dailyContract } from './daily-contract.js';

dailyContract('sqlite', sqliteBackend('eunoe-daily-'));

const redisUrl = inject('redisUrl');
const prefix = `eunoe-test-daily:${randomUUID()}:`;
describe.runIf(redisUrl)('daily aggregates on Redis', () => {
  afterAll(() => deleteRedisPrefix(redisUrl, prefix));
  it('records an older Eunoe wrote (no daily aggregates) get them once, however many replicas start', async () => {
    const upgrade = `${prefix}upgrade:`;
    await writeOlderRedisLedger(redisUrl, upgrade, [
      usageRecord({ messageId: 'o1', userId: 'ann', cost: '0.1', time: at(5, 23, 59, 59, 999) }),
      usageRecord({ messageId: 'o2', userId: 'bob', cost: '0.000000000000000007', time: at(6, 0) }),
    ]);
    const replicas = await Promise.all([redisReplica(redisUrl, upgrade), redisReplica(redisUrl, upgrade)]);
    try {
      await Promise.all(replicas.map((replica) => replica.backfillCounters()));
      // A record the new version writes after the backfill is added once, by the record script.
      await replicas[0]!.usage.record(usageRecord({ messageId: 'n1', userId: 'ann', cost: '0.2', time: at(6, 1) }));
      const late = await redisReplica(redisUrl, upgrade);
      await late.backfillCounters();
      await late.close();
      const all = await replicas[1]!.usage.daily('2026-11-05', '2026-11-07', 'all');
      expect(all.map((row) => [row.day, row.totals.records, formatDecimal(row.totals.cost)])).toEqual([
        ['2026-11-05', 1, '0.1'],
        ['2026-11-06', 2, '0.200000000000000007'],
      ]);
      const users = await replicas[1]!.usage.daily('2026-11-06', '2026-11-07', 'user');
      expect(users.map((row) => [row.key, formatDecimal(row.totals.cost)])).toEqual([
        ['ann', '0.2'],
        ['bob', '0.000000000000000007'],
      ]);
    } finally {
      await Promise.all(replicas.map((replica) => replica.close()));
    }
  });

  dailyContract('redis', redisBackend(redisUrl, prefix));
});
describe('SQLite upgrade', () => {
  it('fills the daily aggregates from the records an older schema kept', async () => {
    const { dir, remove } = tempDir('eunoe-daily-upgrade-');
    const file = path.join(dir, 'eunoe.db');
    try {
      const old = new Database(file);
      runMigrations(old, file, migrations.slice(0, 2));
      const insert = old.prepare(
        `INSERT INTO ledger (id, time, user_id, model, model_key, prompt, completion, cached, cache_write, reasoning,
           total, cost_hi, cost_lo, cost_source, data) VALUES (?, ?, ?, 'm', 'm', 10, 1, 0, 0, 0, 11, ?, ?, 'computed', '{}')`,
      );
      insert.run('o1', at(3, 23, 59, 59, 999), 'ann', 100_000_000, 5); // 0.1 + 5e-18
      insert.run('o2', at(4, 0), 'ann', 200_000_000, 0);
      old.close();
      const store = new SqliteStateStore({ db: openSqliteDatabase(file), file, logger: silentLogger() });
      const rows = await store.usage.daily('2026-11-01', '2026-11-30', 'user');
      expect(rows.map((row) => [row.day, row.key, formatDecimal(row.totals.cost), row.totals.totalTokens])).toEqual([
        ['2026-11-03', 'ann', '0.100000000000000005', 11],
        ['2026-11-04', 'ann', '0.2', 11],
      ]);
      await store.close();
    } finally {
      remove();
    }
  });
});
