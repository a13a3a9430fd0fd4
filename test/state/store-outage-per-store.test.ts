import path from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { StateUnavailableError } from '../../src/core/errors/index.js';
import { loadConfig } from '../../src/core/config.js';
import { createLogger } from '../../src/core/util/logger.js';
import { reportDegraded, StoreOutageLog } from '../../src/core/util/store-outage.js';
import { createStateStore } from '../../src/state/create-state-store.js';
import { openSqliteDatabase } from '../../src/state/sqlite/open-sqlite-database.js';
import { SqliteStateStore } from '../../src/state/sqlite/sqlite-state-store.js';
import { silentLogger } from '../../src/core/util/logger.js';
import { tempDir } from '../helpers/temp-store.js';
import { readFlagState } from '../../src/runtime/flags/flag-store.js';
import { ScopedState } from '../../src/state/scoped-state.js';
import { hangingStore } from '../flags/helpers/flag-stores.js';

/**
 * Each state store has its own outage log: two stores in one process (tests, tools) do not open, count or close each
 * other's outages, and each store's start and end lines go to its own logger.
 */
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function capturedLogger() {
  const lines: Array<{ level: number; msg: string; [field: string]: unknown }> = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: createLogger({ destination }), lines };
}

function sqliteStore(dir: string, name: string, logger = silentLogger()): SqliteStateStore {
  const file = path.join(dir, `${name}.db`);
  const store = new SqliteStateStore({ db: openSqliteDatabase(file), file, logger });
  cleanups.push(() => store.close());
  return store;
}

describe('the outage log is per store', () => {
  it("one store's outage is logged and counted by that store only; another store answering does not end it", async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const a = capturedLogger();
    const b = capturedLogger();
    const storeA = sqliteStore(dir, 'a', a.logger);
    const storeB = sqliteStore(dir, 'b', b.logger);

    await storeA.close(); // store A is away: its calls fail as unavailable
    const error = await storeA.get('k').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StateUnavailableError);
    reportDegraded(undefined, 'flag state unavailable', error);
    reportDegraded(undefined, 'flag state unavailable', error);

    // The start line is store A's, on A's logger.
    expect(a.lines.filter((line) => /State store unavailable/.test(line.msg))).toHaveLength(1);
    expect(b.lines.filter((line) => line.level >= 40)).toEqual([]);

    // Store B answers after the quiet time: that ends no outage (A's is still open, B has none).
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await storeB.set('k', 1);
    expect(await storeB.get('k')).toBe(1);
    expect(b.lines.filter((line) => /answers again after/.test(line.msg))).toEqual([]);
    expect(a.lines.filter((line) => /answers again after/.test(line.msg))).toEqual([]);
    expect(storeA.outage.isOpen).toBe(true);
    expect(storeB.outage.isOpen).toBe(false);
    expect(storeA.outage.end()).toEqual({ 'flag state unavailable': 2 });
  });

  it('closing one store does not forget the open outage of another', async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const storeA = sqliteStore(dir, 'a');
    const storeB = sqliteStore(dir, 'b');
    await storeA.close();
    const error = await storeA.get('k').catch((caught: unknown) => caught);
    reportDegraded(undefined, 'user valves', error);
    await storeB.close();
    expect(storeA.outage.isOpen).toBe(true);
  });

  it('createStateStore gives each store an outage log of its own, or the one it is handed', async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const first = await createStateStore({ config: loadConfig({ DATA_DIR: 'one' }, dir), logger: silentLogger() });
    cleanups.push(() => first.close());
    const second = await createStateStore({ config: loadConfig({ DATA_DIR: 'two' }, dir), logger: silentLogger() });
    cleanups.push(() => second.close());
    expect(first.outage).toBeDefined();
    expect(second.outage).toBeDefined();
    expect(first.outage).not.toBe(second.outage);
    const handed = new StoreOutageLog();
    const third = await createStateStore({
      config: loadConfig({ DATA_DIR: 'three' }, dir),
      logger: silentLogger(),
      outage: handed,
    });
    cleanups.push(() => third.close());
    expect(third.outage).toBe(handed);
  });

  it("a store that does not answer in the flags layer's time counts that fallback in its own outage log", async () => {
    const outage = new StoreOutageLog();
    const other = new StoreOutageLog();
    const hung = Object.assign(hangingStore(), { outage });
    const read = await readFlagState(new ScopedState(hung, 'flags:'), 'chat-1', {
      timeoutMs: 20,
      logger: silentLogger(),
    });
    expect(read.reachable).toBe(false);
    expect(outage.isOpen).toBe(true);
    expect(other.isOpen).toBe(false);
    expect(outage.end()).toEqual({ 'flag state unavailable; replaying flags from the history': 1 });
  });
});
