import path from 'node:path';
import { silentLogger } from '../../src/core/util/logger.js';
import { openSqliteDatabase } from '../../src/state/sqlite/open-sqlite-database.js';
import { SqliteStateStore } from '../../src/state/sqlite/sqlite-state-store.js';
import { fakeDateClock } from '../helpers/clock.js';
import { runStoreContract } from './contract.js';
import { tempDir } from '../helpers/temp-store.js';

runStoreContract(
  'sqlite',
  async () => {
    const { dir, remove } = tempDir();
    const file = path.join(dir, 'state', 'eunoe.db');
    const store = new SqliteStateStore({ db: openSqliteDatabase(file), file, logger: silentLogger() });
    return {
      store,
      dispose: async () => {
        await store.close();
        remove();
      },
    };
  },
  fakeDateClock,
);
