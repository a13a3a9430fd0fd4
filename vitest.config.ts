import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // In the test process, filter files imported in the main thread go through Vite's resolver, not
    // Node's: this mirrors src/host/sdk-resolve-hooks.mjs (`eunoe` → this package's SDK from any folder).
    // Worker threads and spawned servers resolve through the real hook and package.json `exports`.
    alias: [{ find: /^eunoe$/, replacement: fileURLToPath(new URL('./src/sdk.ts', import.meta.url)) }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['test/helpers/global-setup.ts'],
  },
});
