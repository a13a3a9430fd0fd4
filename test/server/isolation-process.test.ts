import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { postInlet } from './helpers/http.js';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SDK_SPECIFIER } from '../helpers/create-test-runtime.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { multipartFile } from './helpers/multipart.js';
import { waitFor } from '../helpers/wait-for.js';

const KEY = 'isolation-key';
const HOOK_TIMEOUT_MS = 4000;
const header = `import { defineFilter } from '${SDK_SPECIFIER}';\n`;

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
    if (body.eat) for (;;) hoard.push(new Array(1_000_000).fill(hoard.length));
    return { ...body, ate: false };
  },
});
`;
const importLoop = `${header}while (true) {}
export default defineFilter({ inlet: ({ body }) => body });
`;

const auth = { Authorization: `Bearer ${KEY}` };

const inlet = (server: ServerProcess, id: string, body: Record<string, unknown>) => postInlet(server, KEY, id, body);

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

/** A server process on a fresh folder holding `files` (name → source). */
async function serverWith(files: Record<string, string>, env: Record<string, string>) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'eunoe-isolation-'));
  writeFileSync(path.join(root, 'package.json'), '{"type":"module"}\n');
  const filtersDir = path.join(root, 'filters');
  mkdirSync(filtersDir);
  for (const [name, source] of Object.entries(files)) writeFileSync(path.join(filtersDir, name), source);
  const server = await startServerProcess({
    PIPELINES_API_KEY: KEY,
    FILTERS_DIR: filtersDir,
    DATA_DIR: path.join(root, 'data'),
    VALVES_DIR: path.join(root, 'valves'),
    FILTER_WORKER_MAX_MB: '64',
    WATCH_FILTERS: 'false',
    ...env,
  });
  return { root, filtersDir, server };
}

async function listed(server: ServerProcess) {
  return (
    (await (await fetch(`${server.url}/pipelines`, { headers: auth })).json()) as {
      data: Array<Record<string, unknown>>;
    }
  ).data;
}

describe('filter code cannot take a real server process down', () => {
  let root: string;
  let server: ServerProcess;
  /** A second server for the import-time loops, which burn the whole import limit: a short one there. */
  let loops: Awaited<ReturnType<typeof serverWith>>;
  beforeAll(async () => {
    [{ root, server }, loops] = await Promise.all([
      serverWith(
        { 'looping.ts': looping, 'hungry.ts': hungry },
        // A liveness bound for the worker imports on a busy machine.
        { HOOK_TIMEOUT_MS: String(HOOK_TIMEOUT_MS), FILTER_LOAD_TIMEOUT_MS: '60000' },
      ),
      serverWith({ 'import-loop.ts': importLoop }, { FILTER_LOAD_TIMEOUT_MS: '1500' }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([server?.stop(), loops?.server.stop()]);
    for (const dir of [root, loops?.root]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a file looping at import does not block start-up: it is listed as failed with a clear error', async () => {
    expect(await listed(loops.server)).toEqual([
      expect.objectContaining({
        id: 'import-loop',
        status: 'failed',
        error: expect.stringMatching(/did not finish within 1500 ms/),
      }),
    ]);
    expect((await listed(server)).find((entry) => entry.id === 'looping')).toMatchObject({
      status: 'loaded',
      isolation: 'worker',
    });
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
    // The log line may reach the output a moment after the answers (another pipe than the HTTP socket).
    await waitFor(() => server.output(), { until: (output) => output.includes('isolated filter worker replaced') });
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
    const upload = fetch(`${loops.server.url}/pipelines/upload`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': contentType },
      body,
    });
    const health = await healthWhile(loops.server, upload);
    const response = await upload;
    expect(response.status).toBe(400);
    expect(((await response.json()) as { detail: string }).detail).toMatch(/did not finish within 1500 ms/);
    expect(health.every((status) => status === 200)).toBe(true);
    expect(existsSync(path.join(loops.filtersDir, 'upload-loop.ts'))).toBe(false);
  });
});
