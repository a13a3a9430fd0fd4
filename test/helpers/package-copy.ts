import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from './create-test-runtime.js';

/**
 * A copy of the package's layout in a temp folder (`src/`, its compiled `dist/`, `filters/`, `pricing/`, `package.json`, and
 * `node_modules` linked), so a server can run there in the default layout (FILTERS_DIR = the package's own
 * `filters/`, DATA_DIR = `data/`) without a test ever touching this checkout's files.
 */
export function copyPackage(): { root: string; dispose: () => void } {
  const root = mkdtempSync(path.join(os.tmpdir(), 'eunoe-package-'));
  for (const entry of ['src', 'dist', 'filters', 'pricing', 'package.json'])
    cpSync(path.join(repoRoot, entry), path.join(root, entry), {
      recursive: true,
      filter: (source) => !source.endsWith('last-good.json'),
    });
  symlinkSync(path.join(repoRoot, 'node_modules'), path.join(root, 'node_modules'), 'dir');
  return { root, dispose: () => rmSync(root, { recursive: true, force: true }) };
}
