import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './test/helpers/slow-first-sequencer.js';

/**
 * `isolate: false`: each worker imports the code under test once and keeps its module cache from
 * file to file, instead of a fresh module graph per file (on 2 cores that import is a large part of
 * the suite's CPU). Tests leave no global state behind: runtimes and stores are closed, fake timers
 * are undone in afterEach, process listeners are removed, nothing mutates process.env.
 * `npx vitest run --isolate …` brings back a fresh graph per file when hunting a leak.
 */
export default defineConfig({
  // This checkout's own results cache (the files' last durations, which the sequencer reads): node_modules/.vite
  // can be a hard-linked copy shared with other checkouts, whose partial runs would then reorder this one's.
  cacheDir: 'node_modules/.cache/eunoe-vite',
  resolve: {
    // In the test process, filter files imported in the main thread go through Vite's resolver, not
    // Node's: this mirrors src/runtime/host/sdk-resolve-hooks.mjs (`eunoe` and `eunoe/shipped` → this package's entries
    // from any folder). Worker threads and spawned servers resolve through the real hook and package.json `exports`.
    alias: [
      { find: /^eunoe\/shipped$/, replacement: fileURLToPath(new URL('./src/sdk-shipped.ts', import.meta.url)) },
      { find: /^eunoe$/, replacement: fileURLToPath(new URL('./src/sdk.ts', import.meta.url)) },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 90_000,
    pool: 'forks',
    // Vitest's default in a run is one worker fewer than the cores: on a 2-core machine, one file at
    // a time. Much of the suite waits on child processes, worker threads, Redis restarts and sockets, so
    // more files than cores overlap that waiting with files that compute (CONTRIBUTING.md, "How the suite is kept fast").
    maxWorkers: 4,
    isolate: false,
    // Longest files first (measured durations from vitest's results cache, else an estimate from the processes a
    // file starts), so the run does not end waiting on one slow file that started last.
    sequence: { sequencer: SlowFirstSequencer },
    globalSetup: ['test/helpers/global-setup.ts'],
  },
});
