import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { StateUnavailableError } from '../../../src/errors/index.js';
import { createStateStore } from '../../../src/state/create-state-store.js';
import { ScopedState } from '../../../src/state/scoped-state.js';
import type { StateStore } from '../../../src/state/types.js';
import { silentLogger } from '../../../src/util/logger.js';
import { freePort } from '../../helpers/redis-server.js';

/** A temporary directory removed by `cleanup`. */
export function tempDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'eunoe-flags-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A real SQLite store on `file` (a new instance on the same file = a server restart). */
export function sqliteStore(file: string): Promise<StateStore> {
  return createStateStore({
    config: {
      sqlitePath: file,
      REDIS_URL: undefined,
      REDIS_PREFIX: 'eunoe:',
      STATE_TIMEOUT_MS: 500,
      LEDGER_QUEUE_MAX: 100,
    },
    logger: silentLogger(),
  });
}

/** A real Redis store (each instance = one replica) under a test-specific prefix. */
export function redisStore(url: string, prefix: string, timeoutMs = 500): Promise<StateStore> {
  return createStateStore({
    config: {
      sqlitePath: '',
      REDIS_URL: url,
      REDIS_PREFIX: prefix,
      STATE_TIMEOUT_MS: timeoutMs,
      LEDGER_QUEUE_MAX: 100,
    },
    logger: silentLogger(),
  });
}

/** A Redis store pointed at a loopback port where nothing listens: its calls reject fast. */
export async function deadRedisStore(): Promise<StateStore> {
  return redisStore(`redis://127.0.0.1:${await freePort()}`, 'dead:', 200);
}

/** The host's flags namespace on a store. */
export function flagsNamespace(store: StateStore): ScopedState {
  return new ScopedState(store, 'flags:');
}

const reject = () => Promise.reject(new StateUnavailableError('test store is down'));

/** A StateStore whose every call rejects with StateUnavailableError (the store is down). */
export function rejectingStore(): StateStore {
  return {
    backend: 'memory',
    get: reject,
    getMany: reject,
    set: reject,
    setMany: reject,
    delete: reject,
    keys: reject,
    compareAndSet: reject,
    increment: reject,
    append: reject,
    range: reject,
    acquireLease: reject,
    publish: reject,
    subscribe: () => () => {},
    health: () => ({ backend: 'memory', ok: false, detail: 'down' }),
    close: async () => {},
  };
}

/** A StateStore whose calls never settle (a hung backend); calls are counted. */
export function hangingStore(): StateStore & { calls: number } {
  const store = rejectingStore() as StateStore & { calls: number };
  store.calls = 0;
  const hang = () => {
    store.calls++;
    return new Promise<never>(() => {});
  };
  return Object.assign(store, { get: hang, compareAndSet: hang, set: hang });
}
