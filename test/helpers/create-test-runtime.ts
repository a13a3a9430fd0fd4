import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig, type Config } from '../../src/core/config.js';
import { createRuntime, type Runtime } from '../../src/compose.js';
import { silentLogger } from '../../src/core/util/logger.js';

/** The repository root (for copying shipped filters). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export const TEST_API_KEY = 'test-key-0123456789';

/** A runtime in its own temp directory, with helpers to add files and restart. */
export interface TestRuntime extends Runtime {
  root: string;
  filtersDir: string;
  config: Config;
  auth: { Authorization: string };
  /** Close and build a new runtime on the same directories (a "restart"). */
  restart(): Promise<TestRuntime>;
  /** Close and delete the temp directory. */
  dispose(): Promise<void>;
}

/**
 * Build a real runtime (SQLite state unless `env.REDIS_URL`) in a temp directory. `filters`
 * names shipped files in `filters/` to copy (e.g. `['turn-limit.ts']`); `sources` writes
 * extra filter files by name. Filters in the temp dir import the SDK by absolute path, so
 * shipped files are rewritten to point at this checkout's `src/sdk.js`.
 */
export async function createTestRuntime(
  options: {
    filters?: string[];
    sources?: Record<string, string>;
    env?: Record<string, string>;
    watch?: boolean;
    root?: string;
  } = {},
): Promise<TestRuntime> {
  const root = options.root ?? mkdtempSync(path.join(os.tmpdir(), 'eunoe-test-'));
  const filtersDir = path.join(root, 'filters');
  mkdirSync(filtersDir, { recursive: true });
  // The temp dir needs ESM semantics for .ts files, like the repository.
  writeFileSync(path.join(root, 'package.json'), '{"type":"module"}\n');
  if (!options.root) {
    for (const name of options.filters ?? []) copyShippedFilter(name, filtersDir);
    for (const [name, source] of Object.entries(options.sources ?? {}))
      writeFileSync(path.join(filtersDir, name), source);
  }
  const config = loadConfig(
    {
      PIPELINES_API_KEY: TEST_API_KEY,
      LOG_LEVEL: 'silent',
      WATCH_FILTERS: 'false',
      PRICING_FETCH: 'false',
      RELOAD_DEBOUNCE_MS: '50',
      // Tests choose their filters (copied into the temp folder); SHIPPED_FILTERS=all is tested on its own.
      SHIPPED_FILTERS: 'none',
      // A liveness bound, not the subject: importing a filter in a worker (tsx + zod) can take
      // many seconds on a busy 2-core machine. Tests of the import time limit set their own.
      FILTER_LOAD_TIMEOUT_MS: '60000',
      // Filters run in the test's own thread unless a test is about where they run: a worker thread
      // imports tsx, zod and the SDK anew (0.5–1 s of CPU each), which made most of the suite's time.
      // Tests of isolation, of the worker path and of the production placement set FILTER_ISOLATION
      // themselves; FILTER_ISOLATION=auto (or worker) npx vitest run … runs a suite with that placement.
      FILTER_ISOLATION: process.env.FILTER_ISOLATION || 'off',
      ...options.env,
    },
    root,
  );
  const runtime = await createRuntime({ config, logger: silentLogger(), watch: options.watch ?? false });
  const test: TestRuntime = {
    ...runtime,
    root,
    filtersDir,
    config,
    auth: { Authorization: `Bearer ${TEST_API_KEY}` },
    async restart() {
      await runtime.close();
      return createTestRuntime({ ...options, root });
    },
    async dispose() {
      await runtime.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
  return test;
}

/**
 * What a filter written into a temp directory imports the SDK by: the package name, as filter files do. It resolves
 * to the host's own SDK from any folder (src/runtime/host/sdk-resolve-hooks.mjs; in the test's thread, the alias in
 * vitest.config.ts), so the filter shares the host's modules.
 */
export const SDK_SPECIFIER = 'eunoe';

/** Copy `filters/<name>` into `dir` (shipped filters import only `eunoe` and `eunoe/shipped`, which resolve from any folder). */
export function copyShippedFilter(name: string, dir: string): void {
  copyFileSync(path.join(repoRoot, 'filters', name), path.join(dir, name));
}
