import type Database from 'better-sqlite3';
import { storedRecord } from '../../domain/usage/stored-record.js';
import type { UsageRecord } from '../../domain/usage/types.js';

/**
 * One-time import of the records an older Eunoe kept in the generic `ledger` stream into the ledger tables (counters
 * included, through `insert`); marked done in `meta` (`ledger_imported`), so it runs once per database.
 */
export function importLegacyLedger(db: Database.Database, insert: (record: UsageRecord) => boolean): void {
  const done = db.prepare("SELECT 1 FROM meta WHERE key = 'ledger_imported'").get();
  if (done) return;
  db.transaction(() => {
    const rows = db.prepare("SELECT data FROM streams WHERE stream = 'ledger' ORDER BY time, seq").all() as Array<{
      data: string;
    }>;
    for (const row of rows) {
      // A damaged entry is left behind; the others are imported (a throw here would stop the store from opening).
      const record = storedRecord(row.data);
      if (
        record &&
        typeof record.messageId === 'string' &&
        typeof record.userId === 'string' &&
        typeof record.time === 'number' &&
        typeof record.cost === 'string'
      )
        insert(record as UsageRecord);
    }
    db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('ledger_imported', ?)").run(new Date().toISOString());
  })();
}
