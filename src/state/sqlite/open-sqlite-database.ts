import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ConfigError } from '../../core/errors/index.js';
import { runMigrations } from './migrations.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, sqliteFiles } from '../../core/util/private-files.js';
import { errorMessage } from '../../core/util/error-message.js';

/** Error codes that mean "the file is damaged or is not a database". */
const CORRUPT_CODES = new Set(['SQLITE_NOTADB', 'SQLITE_CORRUPT']);

/**
 * Open (creating it and its directory if needed, owner-only: 0600 / 0700) the SQLite state file: WAL journal,
 * synchronous=NORMAL (atomic and safe against process crashes; an OS crash may lose the
 * last commits, never corrupt the file), migrations, then a write probe. Any problem
 * becomes a ConfigError naming the file and what to do, so it surfaces at start-up.
 */
export function openSqliteDatabase(file: string, options: { busyTimeoutMs?: number } = {}): Database.Database {
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE });
  } catch (error) {
    throw new ConfigError(
      `Cannot create the directory for the state database ${file}: ${errorMessage(error)}. ` +
        'Set DATA_DIR or SQLITE_PATH to a writable directory.',
      { cause: error },
    );
  }
  let db: Database.Database | undefined;
  try {
    // Created owner-only before SQLite opens it: SQLite gives its -wal/-shm files the database's mode.
    fs.closeSync(fs.openSync(file, 'a', PRIVATE_FILE_MODE));
    db = new Database(file);
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 2000}`);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    runMigrations(db, file);
    // A real write, so a read-only file or directory fails now rather than on the first ledger entry.
    db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run('opened_at', new Date().toISOString());
    // And explicitly, whatever the umask or an older file's mode: the state holds chat summaries and the ledger.
    // Best effort: a file we do not own but may write is still usable (start-up logs that it stays open).
    for (const part of sqliteFiles(file)) {
      try {
        fs.chmodSync(part, PRIVATE_FILE_MODE);
      } catch {
        // missing (no WAL yet) or not ours
      }
    }
    return db;
  } catch (error) {
    db?.close();
    if (error instanceof ConfigError) throw error;
    throw describeOpenError(file, error);
  }
}

/** Turn a better-sqlite3 / fs error into an actionable ConfigError. */
function describeOpenError(file: string, error: unknown): ConfigError {
  const code = (error as { code?: string }).code ?? '';
  const reason = errorMessage(error);
  if (CORRUPT_CODES.has(code)) {
    return new ConfigError(
      `State database ${file} is corrupt or not a SQLite database (${reason}). ` +
        `Move it aside (mv "${file}" "${file}.bad") to start with empty state, or restore it from a backup.`,
      { cause: error },
    );
  }
  return new ConfigError(
    `State database ${file} cannot be opened for writing (${code || 'error'}: ${reason}). ` +
      'Make the file and its directory writable by the Eunoe user, or set DATA_DIR / SQLITE_PATH to a writable place.',
    { cause: error },
  );
}
