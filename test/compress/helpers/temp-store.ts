import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ScopedState } from '../../../src/state/scoped-state.js';
import { openSqliteDatabase } from '../../../src/state/sqlite/open-sqlite-database.js';
import { SqliteStateStore } from '../../../src/state/sqlite/sqlite-state-store.js';
import { silentLogger } from '../../../src/util/logger.js';

/** A real SQLite state store in a temp dir, scoped like the context filter's (`f:context:`). */
export function tempStore(): { state: ScopedState; store: SqliteStateStore; dispose(): Promise<void> } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'eunoe-compress-'));
  const file = path.join(dir, 'state.db');
  const store = new SqliteStateStore({ db: openSqliteDatabase(file), file, logger: silentLogger() });
  return {
    store,
    state: new ScopedState(store, 'f:context:'),
    async dispose() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
