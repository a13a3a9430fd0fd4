import { defineConfig } from 'vitest/config';

/**
 * `isolate: false`: each worker imports the code under test once and keeps its module cache from
 * file to file, instead of a fresh module graph per file. On this 2-core machine that import was
 * a large part of the suite's time (runtime folders: 334 s → 237 s on an idle machine; engine +
 * compress: import phase 49 s → 11 s under load). Tests leave no global state behind: runtimes and stores are closed, fake
 * timers are undone in afterEach, process listeners are removed, nothing mutates process.env.
 * `npx vitest run --isolate …` brings back a fresh graph per file when hunting a leak.
 */
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 90_000,
    pool: 'forks',
    isolate: false,
    globalSetup: ['test/helpers/global-setup.ts'],
  },
});
