import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ConfigError } from '../../errors/index.js';

/** In-memory journal (tests and stores built without a data directory): not durable. */
export const MEMORY_JOURNAL = ':memory:';

/**
 * Open the local ledger journal: an SQLite file holding Redis ledger writes that could not
 * be delivered yet. WAL with synchronous=FULL, so a committed row survives a process kill
 * and a power cut (the commit returns after fsync). Unwritable or corrupt → ConfigError at start-up.
 */
export function openLedgerJournal(file: string): Database.Database {
  try {
    if (file !== MEMORY_JOURNAL) fs.mkdirSync(path.dirname(file), { recursive: true });
    const db = new Database(file);
    db.pragma('busy_timeout = 5000');
    if (file !== MEMORY_JOURNAL) db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('CREATE TABLE IF NOT EXISTS journal (seq INTEGER PRIMARY KEY AUTOINCREMENT, item TEXT NOT NULL)');
    return db;
  } catch (error) {
    throw new ConfigError(
      `Ledger journal ${file} cannot be opened for writing (${(error as Error).message}). ` +
        'Make DATA_DIR writable by the Eunoe user (or move a corrupt file aside); ledger writes made while Redis is down are kept there.',
      { cause: error },
    );
  }
}
