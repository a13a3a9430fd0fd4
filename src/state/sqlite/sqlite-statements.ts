import type Database from 'better-sqlite3';

/** A stored document row. */
export interface DocumentRow {
  key: string;
  value: string;
  expires_at: number | null;
}

/** A stored stream row. */
export interface StreamRow {
  id: string;
  time: number;
  data: string;
}

/** Every prepared statement the SQLite store uses, compiled once. */
export function prepareStatements(db: Database.Database) {
  return {
    getDocument: db.prepare<[string], DocumentRow>('SELECT key, value, expires_at FROM documents WHERE key = ?'),
    getDocuments: db.prepare<[string], DocumentRow>(
      'SELECT key, value, expires_at FROM documents WHERE key IN (SELECT value FROM json_each(?))',
    ),
    putDocument: db.prepare<[string, string, number | null]>(
      `INSERT INTO documents (key, value, expires_at) VALUES (?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`,
    ),
    deleteDocument: db.prepare<[string]>('DELETE FROM documents WHERE key = ?'),
    deleteExpiredDocument: db.prepare<[string, number]>(
      'DELETE FROM documents WHERE key = ? AND expires_at IS NOT NULL AND expires_at <= ?',
    ),
    documentsFrom: db.prepare<[string, number], { key: string }>(
      'SELECT key FROM documents WHERE key >= ? AND (expires_at IS NULL OR expires_at > ?) ORDER BY key',
    ),
    listMeta: db.prepare<[string], { size: number; expires_at: number | null }>(
      'SELECT size, expires_at FROM list_meta WHERE key = ?',
    ),
    putListMeta: db.prepare<[string, number, number | null]>(
      `INSERT INTO list_meta (key, size, expires_at) VALUES (?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET size = excluded.size, expires_at = excluded.expires_at`,
    ),
    deleteListMeta: db.prepare<[string]>('DELETE FROM list_meta WHERE key = ?'),
    hasListItem: db.prepare<[string, string], { found: number }>(
      'SELECT 1 AS found FROM lists WHERE key = ? AND item = ?',
    ),
    oldestListItems: db.prepare<[string, number], { item: string }>(
      'SELECT item FROM lists WHERE key = ? ORDER BY seq ASC LIMIT ?',
    ),
    deleteList: db.prepare<[string]>('DELETE FROM lists WHERE key = ?'),
    nextListSeq: db.prepare<[string], { seq: number }>(
      'SELECT coalesce(max(seq), 0) + 1 AS seq FROM lists WHERE key = ?',
    ),
    putListItem: db.prepare<[string, string, number]>(
      `INSERT INTO lists (key, item, seq) VALUES (?, ?, ?) ON CONFLICT (key, item) DO UPDATE SET seq = excluded.seq`,
    ),
    listItemsFrom: db.prepare<[string, number, number], { item: string }>(
      'SELECT item FROM lists WHERE key = ? ORDER BY seq DESC LIMIT ? OFFSET ?',
    ),
    deleteListItem: db.prepare<[string, string]>('DELETE FROM lists WHERE key = ? AND item = ?'),
    purgeLists: db.prepare<[number]>(
      'DELETE FROM lists WHERE key IN (SELECT key FROM list_meta WHERE expires_at IS NOT NULL AND expires_at <= ?)',
    ),
    purgeListMeta: db.prepare<[number]>('DELETE FROM list_meta WHERE expires_at IS NOT NULL AND expires_at <= ?'),
    windowTimes: db.prepare<[string], { times: string; expires_at: number }>(
      'SELECT times, expires_at FROM windows WHERE key = ?',
    ),
    putWindow: db.prepare<[string, string, number]>(
      `INSERT INTO windows (key, times, expires_at) VALUES (?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET times = excluded.times, expires_at = excluded.expires_at`,
    ),
    purgeWindows: db.prepare<[number]>('DELETE FROM windows WHERE expires_at <= ?'),
    purgeDocuments: db.prepare<[number]>('DELETE FROM documents WHERE expires_at IS NOT NULL AND expires_at <= ?'),
    insertRecord: db.prepare<[string, string, number, number, string]>(
      'INSERT OR IGNORE INTO streams (stream, id, time, seq, data) VALUES (?, ?, ?, ?, ?)',
    ),
    rangeRecords: db.prepare<[string, number, number, number], StreamRow>(
      `SELECT id, time, data FROM streams WHERE stream = ? AND time >= ? AND time < ?
       ORDER BY time, seq LIMIT ?`,
    ),
    maxSeq: db.prepare<[], { seq: number | null }>('SELECT max(seq) AS seq FROM streams'),
    insertLease: db.prepare<[string, string, number]>(
      'INSERT OR IGNORE INTO leases (name, token, expires_at) VALUES (?, ?, ?)',
    ),
    deleteExpiredLease: db.prepare<[string, number]>('DELETE FROM leases WHERE name = ? AND expires_at <= ?'),
    releaseLease: db.prepare<[string, string]>('DELETE FROM leases WHERE name = ? AND token = ?'),
    purgeLeases: db.prepare<[number]>('DELETE FROM leases WHERE expires_at <= ?'),
  };
}

/** The prepared statements of one database. */
export type SqliteStatements = ReturnType<typeof prepareStatements>;
