import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ConfigError } from '../../core/errors/index.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, sqliteFiles } from '../../core/util/private-files.js';
import { errorMessage } from '../../core/util/error-message.js';

/** In-memory journal (tests and stores built without a data directory): not durable. */
export const MEMORY_JOURNAL = ':memory:';

/**
 * Open the local ledger journal: an SQLite file holding ledger writes the state store could not take yet (Redis away,
 * or an SQLite transaction that failed). WAL with synchronous=FULL, so a committed row survives a process kill
 * and a power cut (the commit returns after fsync). Unwritable or corrupt → ConfigError at start-up.
 *
 * Owner-only, like the SQLite state: a journaled record carries the user's id and email. The folders it creates are
 * 0700, the file and its -wal/-shm 0600 (an existing file is made 0600 before SQLite opens it, so SQLite gives the
 * -wal/-shm it creates the same mode). An existing folder is left as it is (it may be a shared one such as /tmp).
 */
export function openLedgerJournal(file: string): Database.Database {
  try {
    if (file !== MEMORY_JOURNAL) {
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE });
      fs.closeSync(fs.openSync(file, 'a', PRIVATE_FILE_MODE));
      chmodIfPresent(file);
    }
    const db = new Database(file);
    db.pragma('busy_timeout = 5000');
    if (file !== MEMORY_JOURNAL) db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('CREATE TABLE IF NOT EXISTS journal (seq INTEGER PRIMARY KEY AUTOINCREMENT, item TEXT NOT NULL)');
    if (file !== MEMORY_JOURNAL) for (const part of sqliteFiles(file)) chmodIfPresent(part);
    return db;
  } catch (error) {
    throw new ConfigError(
      `Ledger journal ${file} cannot be opened for writing (${errorMessage(error)}). ` +
        'Make DATA_DIR writable by the Eunoe user (or move a corrupt file aside); ledger writes made while Redis is down are kept there.',
      { cause: error },
    );
  }
}

/** 0600 when the file exists (a -wal or -shm left 0644 by an older version); a file that is not ours stays as it is. */
function chmodIfPresent(file: string): void {
  try {
    fs.chmodSync(file, PRIVATE_FILE_MODE);
  } catch {
    // missing, or not ours
  }
}
