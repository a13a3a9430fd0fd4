import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startServerProcess, type ServerProcess } from './server-process.js';

/**
 * A real server process for the tests of a describe block, with the shipped filters `filters` (e.g.
 * 'context,system-prefix') and API key `key`: started in beforeAll with its DATA_DIR, FILTERS_DIR and (unless
 * `valves: false`) VALVES_DIR in a temp folder `eunoe-<label>-…`, stopped and its folder removed in afterAll.
 */
export function shippedServerForTests(options: {
  key: string;
  filters: string;
  label: string;
  valves?: boolean;
}): Pick<ServerProcess, 'url'> {
  let server: ServerProcess | undefined;
  let dir: string | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), `eunoe-${options.label}-`));
    server = await startServerProcess({
      PIPELINES_API_KEY: options.key,
      SHIPPED_FILTERS: options.filters,
      DATA_DIR: path.join(dir, 'data'),
      FILTERS_DIR: path.join(dir, 'filters'),
      ...(options.valves === false ? {} : { VALVES_DIR: path.join(dir, 'valves') }),
    });
  }, 90_000);
  afterAll(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return {
    get url() {
      if (!server) throw new Error('the server has not started');
      return server.url;
    },
  };
}
