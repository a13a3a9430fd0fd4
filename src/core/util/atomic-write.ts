import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync, rmSync } from 'node:fs';
import path from 'node:path';

/**
 * Write a file crash-safely: a temp file in the same directory, fsync'd, then renamed over the target.
 * `mode` is the new file's mode (the temp file is created with it, so it is never readable more
 * widely, even briefly); `dirMode` the mode of directories created on the way.
 */
export function writeFileAtomic(file: string, data: string | Uint8Array, mode?: number, dirMode?: number): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: dirMode });
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    writeFileSync(temp, data, { flush: true, mode });
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}
