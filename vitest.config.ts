import { defineConfig } from 'vitest/config';

/**
 * Two projects. Folders whose tests build no runtime (engine, compress, flags, state, pricing,
 * usage, llm, bench) share one module cache per worker (`isolate: false`): importing the code
 * under test once per worker instead of once per file is most of their cost on 2 cores, and
 * they leave no global state behind (fake timers are undone in afterEach, stores are closed).
 * The server, filter, replica and end-to-end tests keep a fresh module graph per file.
 */
const shared = {
  testTimeout: 60_000,
  hookTimeout: 90_000,
  pool: 'forks' as const,
  globalSetup: ['test/helpers/global-setup.ts'],
};

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          ...shared,
          name: 'units',
          include: ['test/{engine,compress,flags,state,pricing,usage,llm,bench}/**/*.test.ts'],
          isolate: false,
        },
      },
      {
        test: {
          ...shared,
          name: 'runtime',
          include: ['test/{server,filters,replicas,e2e}/**/*.test.ts'],
        },
      },
    ],
  },
});
