import { chmodSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { usesRedis, type Config } from '../core/config.js';
import { ConfigError, DataDirInUseError } from '../core/errors/index.js';
import { writeFileAtomic } from '../core/util/atomic-write.js';
import { errorMessage } from '../core/util/error-message.js';

/** Who holds a lock: written beside it so a second process can name the holder. */
export interface LockHolder {
  pid: number;
  port: number;
  host: string;
  since: string;
}

/** A lock this process holds until it exits (the OS lets go of it when the process dies, even by SIGKILL). */
export interface InstanceLock {
  /** The lock file (an SQLite file locked exclusively) and what it protects. */
  file: string;
  what: string;
  release(): void;
}

/** What one Eunoe process must own alone, from its configuration. */
export function lockTarget(
  config: Pick<Config, 'DATA_DIR' | 'ledgerJournalPath'> &
    Partial<Pick<Config, 'REDIS_URL' | 'REDIS_SENTINELS' | 'REDIS_CLUSTER_NODES'>>,
): {
  file: string;
  what: string;
  fix: string;
} {
  // SQLite: the whole state is this folder's; two servers on it would each cache valves and flags and diverge.
  if (!usesRedis(config))
    return {
      file: path.join(config.DATA_DIR, 'eunoe.lock'),
      what: `the data folder ${config.DATA_DIR}`,
      fix: 'Stop that server, or give this one its own DATA_DIR (with Redis, replicas share the state).',
    };
  // Redis: replicas share the state by design; only the local ledger journal (and its counts) is one process's.
  return {
    file: `${config.ledgerJournalPath}.lock`,
    what: `the ledger journal ${config.ledgerJournalPath}`,
    fix: 'Give each replica its own DATA_DIR or LEDGER_JOURNAL_PATH.',
  };
}

function readHolder(file: string): Partial<LockHolder> | undefined {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockHolder>;
    return value && typeof value === 'object' ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Take the exclusive lock on `target.file`, or throw DataDirInUseError naming the live holder (pid, port).
 * The lock is an SQLite file held in EXCLUSIVE locking mode: the kernel's file lock, released by the OS when
 * the holder exits in any way, so a lock left by a killed process is simply taken (its holder file rewritten).
 */
export function takeInstanceLock(
  target: { file: string; what: string; fix: string },
  holder: LockHolder,
): InstanceLock {
  const holderFile = `${target.file}.json`;
  let db: Database.Database | undefined;
  try {
    db = new Database(target.file, { timeout: 0 });
    chmodSync(target.file, 0o600);
    db.pragma('locking_mode = EXCLUSIVE');
    // A write takes the exclusive lock; in EXCLUSIVE locking mode it is kept until the connection closes.
    db.exec('BEGIN EXCLUSIVE; CREATE TABLE IF NOT EXISTS lock (id INTEGER PRIMARY KEY); COMMIT');
  } catch (error) {
    db?.close();
    if ((error as { code?: string }).code !== 'SQLITE_BUSY')
      throw new ConfigError(
        `cannot lock ${target.what} (${target.file}: ${errorMessage(error)}); check that the folder is writable; if no Eunoe server runs, the file may be removed`,
        { cause: error },
      );
    const other = readHolder(holderFile);
    const who = other?.pid
      ? `pid ${other.pid}${other.port !== undefined ? `, port ${other.port}` : ''}${other.since ? `, since ${other.since}` : ''}`
      : 'a process that has not said who it is yet';
    throw new DataDirInUseError(
      `${target.what} is in use by another Eunoe server (${who}). ${target.fix}`,
      other && { pid: other.pid, port: other.port, host: other.host, since: other.since },
    );
  }
  writeFileAtomic(holderFile, `${JSON.stringify(holder)}\n`, 0o600);
  let released = false;
  return {
    file: target.file,
    what: target.what,
    release() {
      if (released) return;
      released = true;
      if (readHolder(holderFile)?.pid === holder.pid) rmSync(holderFile, { force: true });
      db?.close();
    },
  };
}
