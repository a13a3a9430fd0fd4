import type Database from 'better-sqlite3';
import { ConfigError } from '../../core/errors/index.js';

/**
 * Ordered schema migrations. Entry i brings `PRAGMA user_version` from i to i + 1.
 * Append new entries; never edit or reorder shipped ones.
 */
export const migrations: readonly string[] = [
  `
  CREATE TABLE documents (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    expires_at INTEGER
  ) WITHOUT ROWID;
  CREATE INDEX documents_expiry ON documents (expires_at) WHERE expires_at IS NOT NULL;
  CREATE TABLE streams (
    stream TEXT NOT NULL,
    id TEXT NOT NULL,
    time REAL NOT NULL,
    seq INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (stream, id)
  ) WITHOUT ROWID;
  CREATE INDEX streams_by_time ON streams (stream, time, seq);
  CREATE TABLE leases (
    name TEXT PRIMARY KEY,
    token TEXT NOT NULL,
    expires_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  ) WITHOUT ROWID;
  `,
  // 2: the spend ledger in its own table (indexed columns for GROUP BY, exact cost in two integers)
  // and per-user spend counters per UTC day and month, written in the same transaction as a record.
  `
  CREATE TABLE ledger (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    time INTEGER NOT NULL,
    user_id TEXT NOT NULL,
    chat_id TEXT,
    model TEXT NOT NULL,
    priced_as TEXT,
    model_key TEXT NOT NULL,
    prompt INTEGER NOT NULL,
    completion INTEGER NOT NULL,
    cached INTEGER NOT NULL,
    cache_write INTEGER NOT NULL,
    reasoning INTEGER NOT NULL,
    total INTEGER NOT NULL,
    cost_hi INTEGER NOT NULL,
    cost_lo INTEGER NOT NULL,
    cost_source TEXT NOT NULL,
    data TEXT NOT NULL
  );
  CREATE INDEX ledger_by_time ON ledger (time, seq);
  CREATE INDEX ledger_by_user ON ledger (user_id, time, seq);
  CREATE INDEX ledger_by_chat ON ledger (chat_id, time, seq);
  CREATE INDEX ledger_by_model ON ledger (model_key, time, seq);
  CREATE TABLE ledger_spend (
    user_id TEXT NOT NULL,
    period TEXT NOT NULL,
    hi INTEGER NOT NULL,
    lo INTEGER NOT NULL,
    PRIMARY KEY (user_id, period)
  ) WITHOUT ROWID;
  `,
  // 3: daily aggregates (per UTC day: totals, per user, per priced model), written in the same transaction as a
  // record, so the dashboard's time series reads a few rows per day; filled once from the records already kept.
  `
  CREATE TABLE ledger_daily (
    day TEXT NOT NULL,
    dimension TEXT NOT NULL,
    key TEXT NOT NULL,
    records INTEGER NOT NULL,
    prompt INTEGER NOT NULL,
    completion INTEGER NOT NULL,
    cached INTEGER NOT NULL,
    cache_write INTEGER NOT NULL,
    reasoning INTEGER NOT NULL,
    total INTEGER NOT NULL,
    estimated INTEGER NOT NULL,
    unpriced INTEGER NOT NULL,
    hi INTEGER NOT NULL,
    lo INTEGER NOT NULL,
    PRIMARY KEY (dimension, day, key)
  ) WITHOUT ROWID;
  ${['all', 'user', 'model']
    .map(
      (dimension) => `INSERT INTO ledger_daily
    SELECT strftime('%Y-%m-%d', time / 1000, 'unixepoch') AS d, '${dimension}',
      ${dimension === 'all' ? "''" : dimension === 'user' ? 'user_id' : 'model_key'} AS k,
      count(*), sum(prompt), sum(completion), sum(cached), sum(cache_write), sum(reasoning), sum(total),
      sum(cost_source = 'estimated'), sum(cost_source = 'unpriced'), sum(cost_hi), sum(cost_lo)
    FROM ledger GROUP BY d, k;`,
    )
    .join('\n  ')}
  `,
  // 4: capped lists (newest first), apart from documents: the run inspector's indexes. One row per item, so a push
  // costs a few index steps whatever the list's length; a list's size and TTL are one row of its own.
  `
  CREATE TABLE lists (
    key TEXT NOT NULL,
    item TEXT NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY (key, item)
  ) WITHOUT ROWID;
  CREATE INDEX lists_by_seq ON lists (key, seq);
  CREATE TABLE list_meta (
    key TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    expires_at INTEGER
  ) WITHOUT ROWID;
  CREATE INDEX list_meta_expiry ON list_meta (expires_at) WHERE expires_at IS NOT NULL;
  `,
  // 5: spend counters of shared cap scopes (a group, a model pattern; see spend-scopes.ts) per UTC day and month, written
  // in the same transaction as a record that names the scope.
  `
  CREATE TABLE ledger_scope_spend (
    scope TEXT NOT NULL,
    period TEXT NOT NULL,
    hi INTEGER NOT NULL,
    lo INTEGER NOT NULL,
    PRIMARY KEY (scope, period)
  ) WITHOUT ROWID;
  `,
  // 6: sliding windows (windowAdmit, the rate limits): one row per window, its admission times as a JSON array of at
  // most `limit` numbers, apart from documents.
  `
  CREATE TABLE windows (
    key TEXT PRIMARY KEY,
    times TEXT NOT NULL,
    expires_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX windows_expiry ON windows (expires_at);
  `,
];

/**
 * Bring the database to the latest schema, each step in its own transaction.
 * Throws ConfigError when the file comes from a newer Eunoe (more migrations than we know).
 * @returns the schema version now in force
 */
export function runMigrations(db: Database.Database, file: string, steps: readonly string[] = migrations): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > steps.length) {
    throw new ConfigError(
      `State database ${file} has schema version ${current}, newer than this Eunoe knows (${steps.length}). ` +
        'Upgrade Eunoe, or point SQLITE_PATH / DATA_DIR at another file.',
    );
  }
  for (let version = current; version < steps.length; version++) {
    db.transaction(() => {
      db.exec(steps[version] as string);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
  return steps.length;
}
