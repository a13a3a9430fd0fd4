import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/create-test-runtime.js';
import { tempDir } from '../helpers/temp-store.js';

/**
 * The rules `npm run lint` checks with dependency-cruiser (`.dependency-cruiser.cjs`), run on a small planted `src/`
 * in a temporary folder: the real CLI, the project's own configuration.
 */

const depcruise = path.join(repoRoot, 'node_modules', '.bin', 'depcruise');
const config = path.join(repoRoot, '.dependency-cruiser.cjs');

let removes: (() => void)[] = [];
afterEach(() => {
  for (const remove of removes) remove();
  removes = [];
});

/** Writes `files` (path under the folder → source) into a fresh folder and runs the lint's depcruise on its `src`. */
async function cruise(files: Record<string, string>): Promise<{ code: number; output: string }> {
  const { dir, remove } = tempDir('eunoe-layers-');
  removes.push(remove);
  for (const [file, source] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), source);
  }
  return new Promise((resolve) => {
    execFile(depcruise, ['src', '--config', config, '--no-progress'], { cwd: dir }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}

describe('npm run lint: the layer rules', () => {
  it('passes a tree whose imports all point down, sibling folders included', async () => {
    const { code, output } = await cruise({
      'src/runtime/host/types.ts': 'export const a = 1;\n',
      'src/runtime/pipes/run.ts': "import { a } from '../host/types.js';\nexport const b = a;\n",
      'src/runtime/flags/resolve.ts': "import { a } from '../host/types.js';\nexport const c = a;\n",
      'src/features/context/filter.ts': "import { b } from '../../runtime/pipes/run.js';\nexport const d = b;\n",
    });
    expect(output).toContain('no dependency violations');
    expect(code).toBe(0);
  });

  it('fails on a cycle between two sibling folders of a layer, naming both folders (no file cycle needed)', async () => {
    const { code, output } = await cruise({
      'src/runtime/host/types.ts': 'export const a = 1;\n',
      'src/runtime/pipes/run.ts': "import { a } from '../host/types.js';\nexport const b = a;\n",
      // host → pipes, while pipes → host: no file imports itself back, the folders do.
      'src/runtime/host/load.ts': "import { b } from '../pipes/run.js';\nexport const c = b;\n",
    });
    expect(code).not.toBe(0);
    expect(output).toMatch(/error no-folder-cycle: src\/runtime\/host →\s+src\/runtime\/pipes →\s+src\/runtime\/host/);
    expect(output).not.toContain('no-circular:');
  });

  it('fails on a cycle through three sibling folders', async () => {
    const { code, output } = await cruise({
      'src/domain/a/one.ts': "import { two } from '../b/two.js';\nexport const one = two;\n",
      'src/domain/b/two.ts': "import { three } from '../c/three.js';\nexport const two = three;\n",
      'src/domain/c/three.ts': "import type { Four } from '../a/four.js';\nexport const three: Four = 3;\n",
      'src/domain/a/four.ts': 'export type Four = number;\n',
    });
    expect(code).not.toBe(0);
    expect(output).toMatch(
      /error no-folder-cycle: src\/domain\/a →\s+src\/domain\/b →\s+src\/domain\/c →\s+src\/domain\/a/,
    );
  });

  it('fails on a feature importing another feature', async () => {
    const { code, output } = await cruise({
      'src/features/accounting/services.ts': 'export const ledger = 1;\n',
      'src/features/proxy/openai-proxy.ts':
        "import { ledger } from '../accounting/services.js';\nexport const p = ledger;\n",
    });
    expect(code).not.toBe(0);
    expect(output).toContain(
      'error feature-imports-feature: src/features/proxy/openai-proxy.ts → src/features/accounting/services.ts',
    );
  });
});
