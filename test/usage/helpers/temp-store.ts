import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createStateStore } from '../../../src/state/create-state-store.js';
import type { StateStore } from '../../../src/state/types.js';
import { silentLogger } from '../../../src/util/logger.js';

/** A real SQLite-backed store in a fresh temp directory, and its cleanup. */
export async function tempSqliteStore(): Promise<{ store: StateStore; dir: string; cleanup: () => Promise<void> }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'eunoe-usage-'));
  const store = await createStateStore({
    config: {
      REDIS_URL: undefined,
      REDIS_PREFIX: 'eunoe:',
      STATE_TIMEOUT_MS: 500,
      LEDGER_QUEUE_MAX: 100,
      sqlitePath: path.join(dir, 'state.db'),
    },
    logger: silentLogger(),
  });
  return {
    store,
    dir,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
