import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sdkPath } from '../helpers/create-test-runtime.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { multipartFile } from './helpers/multipart.js';
import { waitFor } from '../helpers/wait-for.js';

const KEY = 'isolation-key';
const HOOK_TIMEOUT_MS = 2000;
const header = `import { defineFilter } from '${sdkPath}';\n`;

/** Loops forever in its inlet when the body asks for it. */
const looping = `${header}export default defineFilter({
  inlet({ body }) {
    if (body.loop) while (true) {}
    return { ...body, looped: false };
  },
});
`;
/** Allocates without bound when the body asks for it. */
const hungry = `${header}export default defineFilter({
  inlet({ body }) {
    const hoard = [];
    if (body.eat) for (;;) hoard.push(new Array(100000).fill(hoard.length));
    return { ...body, ate: false };
  },
});
`;
const importLoop = `${header}while (true) {}
export default defineFilter({ inlet: ({ body }) => body });
`;

const auth = { Authorization: `Bearer ${KEY}` };

function inlet(server: ServerProcess, id: string, body: Record<string, unknown>) {
  return fetch(`${server.url}/${id}/filter/inlet`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ body: { model: 'm', messages: [], ...body }, user: { id: 'u' } }),
  });
}

/** Every answer of GET /health while `pending` runs (the server must keep answering). */
async function healthWhile(server: ServerProcess, pending: Promise<unknown>): Promise<number[]> {
  let done = false;
  void pending.finally(() => (done = true));
  const statuses: number[] = [];
  while (!done) {
    statuses.push((await fetch(`${server.url}/health`, { headers: auth, signal: AbortSignal.timeout(5000) })).status);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return statuses;
}

describe('filter code cannot take a real server process down', () => {
  let root: string;
  let filtersDir: string;
  let server: ServerProcess;
  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'eunoe-isolation-'));
    writeFileSync(path.join(root, 'package.json'), '{"type":"module"}\n');
    filtersDir = path.join(root, 'filters');
    mkdirSync(filtersDir);
    writeFileSync(path.join(filtersDir, 'looping.ts'), looping);
    writeFileSync(path.join(filtersDir, 'hungry.ts'), hungry);
    writeFileSync(path.join(filtersDir, 'import-loop.ts'), importLoop);
    server = await startServerProcess({
      PIPELINES_API_KEY: KEY,
      FILTERS_DIR: filtersDir,
      DATA_DIR: path.join(root, 'data'),
      VALVES_DIR: path.join(root, 'valves'),
      HOOK_TIMEOUT_MS: String(HOOK_TIMEOUT_MS),
      // Long enough for the other files' worker imports on a busy machine; the looping import burns it whole.
      FILTER_LOAD_TIMEOUT_MS: '8000',
      FILTER_WORKER_MAX_MB: '64',
      WATCH_FILTERS: 'false',
    });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('a file looping at import does not block start-up: it is listed as failed with a clear error', async () => {
    const list = (await (await fetch(`${server.url}/pipelines`, { headers: auth })).json()) as {
      data: Array<Record<string, unknown>>;
    };
    expect(list.data.find((entry) => entry.id === 'import-loop')).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/did not finish within 8000 ms/),
    });
    expect(list.data.find((entry) => entry.id === 'looping')).toMatchObject({ status: 'loaded', isolation: 'worker' });
  });

  it('a hook in an endless loop answers 504 while /health keeps answering; the next request works', async () => {
    const started = Date.now();
    const looped = inlet(server, 'looping', { loop: true });
    const health = await healthWhile(server, looped);
    const response = await looped;
    expect(response.status).toBe(504);
    expect(((await response.json()) as { detail: string }).detail).toMatch(/timed out/);
    expect(Date.now() - started).toBeLessThan(HOOK_TIMEOUT_MS + 8000); // did not hang
    expect(health.length).toBeGreaterThan(0);
    expect(health.every((status) => status === 200)).toBe(true);
    const next = await inlet(server, 'looping', { loop: false });
    expect(next.status).toBe(200);
    expect(await next.json()).toMatchObject({ looped: false });
    expect(server.output()).toContain('isolated filter worker replaced');
  });

  it('a hook allocating without bound hits the worker memory limit: 500, the server lives, the filter comes back', async () => {
    const eaten = inlet(server, 'hungry', { eat: true });
    const health = await healthWhile(server, eaten);
    const response = await eaten;
    expect([500, 503]).toContain(response.status);
    expect(((await response.json()) as { detail: string }).detail).toMatch(/out of memory/);
    expect(health.every((status) => status === 200)).toBe(true);
    const next = await waitFor(() => inlet(server, 'hungry', {}).then((answer) => answer.status), {
      until: (status) => status === 200,
      timeoutMs: 15_000,
    });
    expect(next).toBe(200);
  });

  it('an upload that loops at import is rejected (400) and the server keeps answering', async () => {
    const { body, contentType } = multipartFile('upload-loop.ts', importLoop);
    const upload = fetch(`${server.url}/pipelines/upload`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': contentType },
      body,
    });
    const health = await healthWhile(server, upload);
    const response = await upload;
    expect(response.status).toBe(400);
    expect(((await response.json()) as { detail: string }).detail).toMatch(/did not finish within/);
    expect(health.every((status) => status === 200)).toBe(true);
    expect(existsSync(path.join(filtersDir, 'upload-loop.ts'))).toBe(false);
  });
});
