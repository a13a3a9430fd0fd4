import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createStateStore } from '../../src/state/create-state-store.js';
import type { StateStore } from '../../src/state/types.js';
import { silentLogger } from '../../src/core/util/logger.js';

/** The suite's one place for real temporary state: directories, SQLite stores and Redis stores. */

/** A fresh real directory under the OS temp dir, and a function removing it. */
export function tempDir(label = 'eunoe-test-'): { dir: string; remove: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), label));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A real SQLite store on `file`, built as the server builds it (a new instance on the same file = a restart). */
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

/** A real Redis store under a test-specific prefix (each instance = one replica). */
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

/** A real SQLite store in its own temp directory; `dispose` closes it and removes the directory. */
export async function tempSqliteStore(
  label = 'eunoe-store-',
): Promise<{ store: StateStore; dir: string; dispose: () => Promise<void> }> {
  const { dir, remove } = tempDir(label);
  const store = await sqliteStore(path.join(dir, 'state.db'));
  return {
    store,
    dir,
    dispose: async () => {
      await store.close();
      remove();
    },
  };
}
