import type Database from 'better-sqlite3';
import { ConfigError } from '../../errors/index.js';

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
