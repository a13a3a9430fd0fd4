import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors/index.js';
import { createStateStore } from '../../src/state/create-state-store.js';
import { migrations } from '../../src/state/sqlite/migrations.js';
import { openSqliteDatabase } from '../../src/state/sqlite/open-sqlite-database.js';
import { SqliteStateStore } from '../../src/state/sqlite/sqlite-state-store.js';
import { silentLogger } from '../../src/core/util/logger.js';
import { tempDir } from '../helpers/temp-store.js';
import { waitFor } from '../helpers/wait-for.js';

const config = (sqlitePath: string) => ({
  REDIS_URL: undefined,
  REDIS_PREFIX: 'eunoe:',
  STATE_TIMEOUT_MS: 500,
  LEDGER_QUEUE_MAX: 10,
  sqlitePath,
});
let removeDir: (() => void) | undefined;
afterEach(() => removeDir?.());
function scratch(): string {
  const { dir, remove } = tempDir();
  removeDir = remove;
  return dir;
}

/** The ConfigError a failed createStateStore produced. */
async function configErrorOf(sqlitePath: string): Promise<ConfigError> {
  const error = await createStateStore({ config: config(sqlitePath), logger: silentLogger() }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

describe('SQLite start-up problems become a clear ConfigError', () => {
  it('unwritable location: the parent "directory" is a regular file', async () => {
    const dir = scratch();
    const blocker = path.join(dir, 'data');
    fs.writeFileSync(blocker, 'not a directory');
    const file = path.join(blocker, 'eunoe.db');
    const error = await configErrorOf(file);
    expect(error.message).toContain(file);
    expect(error.message).toMatch(/DATA_DIR|SQLITE_PATH/);
  });

  it('corrupt file: garbage bytes where the database should be', async () => {
    const file = path.join(scratch(), 'eunoe.db');
    fs.writeFileSync(file, Buffer.from(Array.from({ length: 8192 }, (_, index) => (index * 7919) % 251)));
    const error = await configErrorOf(file);
    expect(error.message).toContain(file);
    expect(error.message).toMatch(/corrupt/);
    expect(error.message).toContain(`mv "${file}"`);
    expect(fs.readFileSync(file)).toHaveLength(8192);
  });

  it('a database from a newer Eunoe (higher user_version) is refused, not altered', async () => {
    const file = path.join(scratch(), 'eunoe.db');
    const raw = new Database(file);
    raw.pragma(`user_version = ${migrations.length + 5}`);
    raw.close();
    const error = await configErrorOf(file);
    expect(error.message).toMatch(/newer/);
  });
});

describe('SQLite file lifecycle', () => {
  it('creates the directory, runs migrations once, uses WAL, and keeps data across restarts', async () => {
    const file = path.join(scratch(), 'nested', 'deeper', 'eunoe.db');
    const first = await createStateStore({ config: config(file), logger: silentLogger() });
    expect(first.backend).toBe('sqlite');
    await first.set('valves:u1', { limit: 5 });
    await first.append('ledger', { id: 'm1', time: 10, data: { usd: 0.25 } });
    await first.increment('spend', 0.25);
    await first.close();

    const raw = new Database(file, { readonly: true });
    expect(raw.pragma('user_version', { simple: true })).toBe(migrations.length);
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    raw.close();

    const second = await createStateStore({ config: config(file), logger: silentLogger() });
    expect(await second.get('valves:u1')).toEqual({ limit: 5 });
    expect(await second.increment('spend', 0.5)).toBe(0.75);
    expect(await second.append('ledger', { id: 'm1', time: 10, data: {} })).toBe(false);
    await second.append('ledger', { id: 'm2', time: 10, data: {} });
    expect((await second.range('ledger')).map((record) => record.id)).toEqual(['m1', 'm2']);
    expect(second.health()).toEqual({ backend: 'sqlite', ok: true, detail: file, queued: 0, ledger: { refused: 0 } });
    await second.close();
  });

  it('purges expired rows in the background, not only when read', async () => {
    const file = path.join(scratch(), 'eunoe.db');
    const store = new SqliteStateStore({
      db: openSqliteDatabase(file),
      file,
      logger: silentLogger(),
      purgeIntervalMs: 30,
    });
    await store.set('short', 1, { ttlMs: 20 });
    await store.set('kept', 2);
    await store.acquireLease('job', 20);
    // Read the file directly (never through the store, which would purge on read) until the purge ran.
    const rows = () => {
      const raw = new Database(file, { readonly: true });
      try {
        return {
          documents: raw.prepare('SELECT key FROM documents ORDER BY key').all(),
          leases: raw.prepare('SELECT name FROM leases').all(),
        };
      } finally {
        raw.close();
      }
    };
    const purged = await waitFor(rows, { until: (found) => found.documents.length < 2 && found.leases.length === 0 });
    await store.close();
    expect(purged).toEqual({ documents: [{ key: 'kept' }], leases: [] });
  });
});
