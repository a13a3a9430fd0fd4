import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sdkPath } from '../helpers/create-test-runtime.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';

const KEY = 'resilience-key';

const strayThrow = `import { defineFilter } from '${sdkPath}';
export default defineFilter({
  inlet({ body }) {
    setTimeout(() => { throw new Error('stray timer error from a filter'); }, 5);
    Promise.reject(new Error('stray rejected promise'));
    return body;
  },
});
`;
const slow = `import { defineFilter } from '${sdkPath}';
export default defineFilter({
  async inlet({ body }) {
    await new Promise((resolve) => setTimeout(resolve, 800));
    return { ...body, slow: 'done' };
  },
});
`;

function post(server: ServerProcess, id: string) {
  return fetch(`${server.url}/${id}/filter/inlet`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ body: { model: 'm', messages: [] }, user: { id: 'u' } }),
  });
}

describe('a real server process stays up and drains on shutdown', () => {
  let root: string;
  let server: ServerProcess;
  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'eunoe-resilience-'));
    writeFileSync(path.join(root, 'package.json'), '{"type":"module"}\n');
    mkdirSync(path.join(root, 'filters'));
    writeFileSync(path.join(root, 'filters', 'stray.ts'), strayThrow);
    writeFileSync(path.join(root, 'filters', 'slow.ts'), slow);
    server = await startServerProcess({ PIPELINES_API_KEY: KEY, FILTERS_DIR: path.join(root, 'filters'), DATA_DIR: path.join(root, 'data'), VALVES_DIR: path.join(root, 'valves') });
  }, 30_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('a stray exception or rejection in a filter is logged and the server keeps serving', async () => {
    expect((await post(server, 'stray')).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const again = await fetch(`${server.url}/`);
    expect(again.status).toBe(200);
    expect(server.output()).toContain('uncaught exception (server keeps running)');
    expect(server.output()).toContain('unhandled rejection');
  });

  it('SIGTERM lets a request in flight finish before the process exits', async () => {
    const inFlight = post(server, 'slow');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const stopped = server.stop();
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(((await response.json()) as { slow?: string }).slow).toBe('done');
    await stopped;
  });
});
