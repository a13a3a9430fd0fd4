import { chmodSync, existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from './logger.js';
import { errorMessage } from './error-message.js';

/** Modes of files holding secrets or private data (API key, valves with API keys, the SQLite state). */
export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

/** The files SQLite keeps next to a database in WAL mode. */
export function sqliteFiles(database: string): string[] {
  return [database, `${database}-wal`, `${database}-shm`];
}

/**
 * Make `target` no more accessible than `mode` when group or others can read it: chmod it and log
 * one line naming the file and both modes. Missing files are skipped; a chmod that fails (not the
 * owner) is logged and start-up goes on. Returns whether the mode was changed.
 */
export function makePrivate(target: string, mode: number, logger: Logger): boolean {
  let current: number;
  try {
    current = statSync(target).mode & 0o777;
  } catch {
    return false;
  }
  if ((current & 0o077) === 0) return false;
  const octal = (value: number) => value.toString(8).padStart(4, '0');
  try {
    chmodSync(target, mode);
    logger.warn(
      { file: target, from: octal(current), to: octal(mode) },
      `made private: ${target} was readable by others (mode ${octal(current)} → ${octal(mode)})`,
    );
    return true;
  } catch (error) {
    logger.error(
      { file: target, mode: octal(current), err: errorMessage(error) },
      `cannot make ${target} private; chmod it to ${octal(mode)} yourself`,
    );
    return false;
  }
}

/**
 * At start-up, fix the modes of what earlier versions created world-readable: `dataDir` and
 * `valvesDir` (0700), the saved API key, every saved valves file and the SQLite database with its
 * -wal/-shm files (0600). New files are created with these modes by their writers.
 */
export function securePrivateFiles(options: {
  dataDir: string;
  valvesDir: string;
  sqlitePath?: string;
  logger: Logger;
}): void {
  const { dataDir, valvesDir, logger } = options;
  for (const dir of [dataDir, valvesDir]) makePrivate(dir, PRIVATE_DIR_MODE, logger);
  const files = [path.join(dataDir, 'api-key'), ...(options.sqlitePath ? sqliteFiles(options.sqlitePath) : [])];
  if (existsSync(valvesDir)) {
    try {
      for (const name of readdirSync(valvesDir)) if (name.endsWith('.json')) files.push(path.join(valvesDir, name));
    } catch (error) {
      logger.error(
        { dir: valvesDir, err: errorMessage(error) },
        "cannot list the valves directory to check its files' modes",
      );
    }
  }
  for (const file of files) makePrivate(file, PRIVATE_FILE_MODE, logger);
}
