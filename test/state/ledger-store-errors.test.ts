import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Redis } from 'ioredis';
import { describe, expect, inject, it } from 'vitest';
import { cleanupsAfterEach } from '../helpers/cleanups.js';
import { RedisStateStore } from '../../src/state/redis/redis-state-store.js';
import type { UsageRecord } from '../../src/domain/usage/types.js';
import { createLedger } from '../../src/runtime/usage/ledger.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { serverCaller } from '../helpers/server-calls.js';
import { tempDir } from '../helpers/temp-store.js';
import { waitFor } from '../helpers/wait-for.js';
import { captureLogger } from './helpers/capture-logger.js';
import { ledgerOutletBody } from './helpers/full-disk.js';
import { createStateStore } from '../../src/state/create-state-store.js';
import { silentLogger } from '../../src/core/util/logger.js';
import { usageRecord } from '../usage/helpers/usage-record.js';

/**
 * "No answered record lost" holds for store errors as for crashes: a ledger write that fails after the outlet was
 * answered (here a real SQLite constraint raised by a trigger; a real Redis script error, WRONGTYPE) goes to the
 * journal and is retried until it lands, across a kill -9 too.
 */
const KEY = 'store-errors-key-0123456789';
const cleanups = cleanupsAfterEach();
const outletBody = (id: string) => ledgerOutletBody('errors', id);

const call = serverCaller(KEY);
/** `POST route` on `server` with `body`, the API key: the status and the JSON answer. */
const post = (server: ServerProcess, route: string, body: unknown) => call(server, 'POST', route, body);

async function health(server: ServerProcess) {
  const response = await fetch(`${server.url}/health`, { headers: { authorization: `Bearer ${KEY}` } });
  return (await response.json()) as { store: { ok: boolean; queued?: number } };
}

describe('SQLite: a ledger write that fails after the answer is journaled and retried', () => {
  it('a constraint failure: 200, the record waits in the journal (across a kill -9) and lands once the cause is gone', async () => {
    const { dir, remove } = tempDir('eunoe-store-errors-');
    cleanups.push(remove);
    const dataDir = path.join(dir, 'data');
    const env = { DATA_DIR: dataDir, SHIPPED_FILTERS: 'accounting', PIPELINES_API_KEY: KEY, REDIS_URL: '' };
    let server = await startServerProcess(env);
    cleanups.push(() => server.stop());
    const database = path.join(dataDir, 'eunoe.db');
    // A second connection on the same file, like an admin's sqlite3 shell: every ledger insert now fails.
    const admin = new Database(database);
    cleanups.push(() => void admin.close());
    admin.exec(
      "CREATE TRIGGER refuse_ledger BEFORE INSERT ON ledger BEGIN SELECT RAISE(ABORT, 'ledger refused by test'); END",
    );
    const recorded = (id: string) =>
      admin.prepare('SELECT data FROM ledger WHERE id = ?').get(id) as { data: string } | undefined;

    const first = await post(server, '/accounting/filter/outlet', outletBody('a-retried'));
    expect(first.status).toBe(200);
    expect(recorded('a-retried')).toBeUndefined();
    expect((await health(server)).store).toMatchObject({ ok: false, queued: 1 });
    // The log line may reach the output a moment after the answers (another pipe than the HTTP socket).
    await waitFor(() => server.output(), {
      until: (output) => /SQLite ledger write failed.*ledger refused by test.*kept in the journal/.test(output),
    });

    admin.exec('DROP TRIGGER refuse_ledger');
    await waitFor(() => recorded('a-retried') !== undefined, { timeoutMs: 30_000 });
    await waitFor(async () => (await health(server)).store.queued === 0, { timeoutMs: 15_000 });
    expect((await health(server)).store.ok).toBe(true);

    // Refused again, then the process is killed before any retry could succeed: the next start writes it.
    admin.exec(
      "CREATE TRIGGER refuse_ledger BEFORE INSERT ON ledger BEGIN SELECT RAISE(ABORT, 'ledger refused by test'); END",
    );
    expect((await post(server, '/accounting/filter/outlet', outletBody('a-after-crash'))).status).toBe(200);
    await server.kill();
    expect(existsSync(path.join(dataDir, 'ledger-journal.db'))).toBe(true);
    admin.exec('DROP TRIGGER refuse_ledger');
    expect(recorded('a-after-crash')).toBeUndefined();
    server = await startServerProcess(env);
    await waitFor(() => recorded('a-after-crash') !== undefined, { timeoutMs: 15_000 });
    const record = JSON.parse(recorded('a-after-crash')!.data) as UsageRecord;
    expect(record).toMatchObject({ messageId: 'a-after-crash', userId: 'u-errors', promptTokens: 1200 });
    const spend = admin.prepare("SELECT count(*) AS n FROM ledger WHERE user_id = 'u-errors'").get() as { n: number };
    expect(spend.n).toBe(2);
  }, 120_000); // two server starts and a kill: a liveness bound, as in the other process tests
});

describe('SQLite: the whole database unable to write (locked by another process)', () => {
  it('records accepted while it is locked are journaled and all land once the lock is gone', async () => {
    const { dir, remove } = tempDir('eunoe-store-errors-');
    cleanups.push(remove);
    const file = path.join(dir, 'eunoe.db');
    const store = await createStateStore({
      config: {
        sqlitePath: file,
        ledgerJournalPath: path.join(dir, 'ledger-journal.db'),
        REDIS_URL: undefined,
        REDIS_PREFIX: 'eunoe:',
        STATE_TIMEOUT_MS: 100,
        LEDGER_QUEUE_MAX: 100,
      },
      logger: silentLogger(),
    });
    cleanups.push(() => store.close());
    const ledger = createLedger(store);
    const locker = new Database(file);
    cleanups.push(() => void locker.close());
    locker.exec('BEGIN EXCLUSIVE'); // SQLITE_BUSY for every writer until it ends
    const records = ['l-1', 'l-2', 'l-3'].map((id) => usageRecord({ messageId: id, userId: 'u-locked', cost: '0.5' }));
    expect(await Promise.all(records.map((record) => ledger.record(record)))).toEqual([true, true, true]);
    expect(store.health()).toMatchObject({ ok: false, queued: 3 });
    locker.exec('ROLLBACK');
    await waitFor(() => store.health().queued === 0, { timeoutMs: 15_000 });
    expect((await ledger.list({ userId: 'u-locked' })).map((record) => record.messageId).sort()).toEqual([
      'l-1',
      'l-2',
      'l-3',
    ]);
    expect(await ledger.spent('u-locked', 0, Date.UTC(2027, 0, 1))).toBe('1.5');
    expect(store.health().ok).toBe(true);
  });
});

const redisUrl = inject('redisUrl');
describe.runIf(Boolean(redisUrl))('Redis: a record the script refuses is journaled and retried', () => {
  it('WRONGTYPE on the spend counters: accepted, nothing half-written, and recorded once the key is fixed', async () => {
    const { dir, remove } = tempDir('eunoe-store-errors-');
    cleanups.push(remove);
    const prefix = `eunoe-store-errors:${randomUUID()}:`;
    const { logger, lines } = captureLogger();
    const store = new RedisStateStore({
      url: redisUrl,
      prefix,
      logger,
      timeoutMs: 500,
      queueMax: 100,
      flushRetryMs: 100,
      journalFile: path.join(dir, 'ledger-journal.db'),
    });
    cleanups.push(() => store.close());
    expect(await store.waitUntilReady(5000)).toBe(true);
    const admin = new Redis(redisUrl);
    cleanups.push(() => void admin.disconnect());
    const spendKey = `${prefix}u:spend:u-redis`;
    await admin.set(spendKey, 'not a hash'); // e.g. a hand-made key in the way
    const ledger = createLedger(store);
    const record = (id: string): UsageRecord => ({
      messageId: id,
      time: Date.UTC(2026, 10, 29, 12),
      userId: 'u-redis',
      model: 'openai/gpt-4o',
      promptTokens: 10,
      completionTokens: 5,
      cachedTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
      totalTokens: 15,
      cost: '0.25',
      costSource: 'computed',
      usageSource: 'reported',
    });

    expect(await ledger.record(record('r-refused'))).toBe(true); // accepted: journaled
    expect(await ledger.record(record('r-second'))).toBe(true);
    expect(store.health().queued).toBe(2);
    // Nothing of the refused record was written (the script checks key types before writing).
    expect(await admin.hexists(`${prefix}s:ledger:h`, 'r-refused')).toBe(0);
    const refusedLines = lines.filter((line) => /ledger write refused by Redis/.test(line.msg));
    expect(refusedLines.length).toBe(2);
    expect(refusedLines[0]!.record).toContain('r-refused');

    await admin.del(spendKey);
    await waitFor(() => store.health().queued === 0, { timeoutMs: 15_000 });
    expect((await ledger.list({ userId: 'u-redis' })).map((entry) => entry.messageId).sort()).toEqual([
      'r-refused',
      'r-second',
    ]);
    expect(await ledger.spent('u-redis', Date.UTC(2026, 10, 1), Date.UTC(2026, 11, 1))).toBe('0.5');
    expect(lines.some((line) => /accepted by Redis on retry/.test(line.msg))).toBe(true);
  });
});
