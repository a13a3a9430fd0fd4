import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/create-test-runtime.js';

type TwinModule = { compiledTwin(sourceUrl: string | URL): string | undefined };

const workerMain = 'runtime/host/isolation/worker-main';

describe('dist/: the sources compiled to JavaScript, and when a thread started from the source may use them', () => {
  let root: string;
  let twin: TwinModule;
  const source = (file: string) => pathToFileURL(path.join(root, 'src', file));
  const build = () => spawnSync(process.execPath, [path.join(root, 'scripts/build.mjs')], { encoding: 'utf8' });

  beforeAll(async () => {
    // A copy of the package without dist/: built here from scratch.
    root = mkdtempSync(path.join(os.tmpdir(), 'eunoe-build-'));
    for (const entry of ['src', 'scripts', 'package.json'])
      cpSync(path.join(repoRoot, entry), path.join(root, entry), { recursive: true });
    symlinkSync(path.join(repoRoot, 'node_modules'), path.join(root, 'node_modules'), 'dir');
    const first = build();
    expect(first.status).toBe(0);
    expect(first.stderr).toMatch(/^eunoe: compiled \d+ files to dist\/ in \d+ ms\n$/);
    twin = (await import(pathToFileURL(path.join(root, 'src/core/util/compiled-twin.mjs')).href)) as TwinModule;
  });
  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('this checkout was compiled by the suite set-up: a source module has its twin in dist/', async () => {
    const here = (await import(
      pathToFileURL(path.join(repoRoot, 'src/core/util/compiled-twin.mjs')).href
    )) as TwinModule;
    expect(here.compiledTwin(pathToFileURL(path.join(repoRoot, 'src', `${workerMain}.ts`)))).toBe(
      pathToFileURL(path.join(repoRoot, 'dist', `${workerMain}.js`)).href,
    );
  });

  it('files beside the code are copied; a path outside src/ has no twin; built from these sources, nothing to do', () => {
    for (const copied of [
      'runtime/host/isolation/worker-bootstrap.mjs',
      'features/integrations/open-webui/function-template.py',
      'features/dashboard/public/index.html',
      'domain/engine/weighting/data/term-neighbours.json.gz',
    ])
      expect(
        readFileSync(path.join(root, 'dist', copied)).equals(readFileSync(path.join(root, 'src', copied))),
        copied,
      ).toBe(true);
    expect(twin.compiledTwin(pathToFileURL(path.join(root, 'scripts/build.mjs')))).toBeUndefined();
    expect(twin.compiledTwin(source(`${workerMain}.ts`))).toBe(
      pathToFileURL(path.join(root, 'dist', `${workerMain}.js`)).href,
    );
    const again = build();
    expect(again.status).toBe(0);
    expect(again.stderr).toBe(''); // nothing compiled, nothing printed
  });

  it('an edited or removed source makes dist/ stale (a thread runs the source); the build makes it current again', () => {
    appendFileSync(path.join(root, 'src/core/version.ts'), '\nexport const BUILD_PROBE = 41 + 1;\n');
    expect(twin.compiledTwin(source(`${workerMain}.ts`))).toBeUndefined();
    rmSync(path.join(root, 'src/domain/engine/README.md'));
    rmSync(path.join(root, 'src/core/util/timeout-signal.ts'));

    const rebuilt = build();
    expect(rebuilt.status).toBe(0);
    expect(rebuilt.stderr).toMatch(/^eunoe: compiled \d+ files to dist\/ in \d+ ms\n$/);
    expect(readFileSync(path.join(root, 'dist/core/version.js'), 'utf8')).toContain('BUILD_PROBE = 41 + 1');
    expect(existsSync(path.join(root, 'dist/core/util/timeout-signal.js'))).toBe(false);
    expect(existsSync(path.join(root, 'dist/core/util/timeout-signal.js.map'))).toBe(false);
    expect(existsSync(path.join(root, 'dist/domain/engine/README.md'))).toBe(false);
    expect(twin.compiledTwin(source(`${workerMain}.ts`))).toBe(
      pathToFileURL(path.join(root, 'dist', `${workerMain}.js`)).href,
    );
  });
});
