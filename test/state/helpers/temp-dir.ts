import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A fresh real directory under the OS temp dir, and a function removing it. */
export function tempDir(label = 'eunoe-state-'): { dir: string; remove: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), label));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
