import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SDK_SPECIFIER } from '../helpers/create-test-runtime.js';
import { serverEntry, startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { waitFor } from '../helpers/wait-for.js';
import { serverEnv } from '../../bench/lib/server-env.js';

const KEY = 'resilience-key';

const strayThrow = `import { defineFilter } from '${SDK_SPECIFIER}';
export default defineFilter({
  inlet({ body }) {
    setTimeout(() => { throw new Error('stray timer error from a filter'); }, 5);
    Promise.reject(new Error('stray rejected promise'));
    return body;
  },
});
`;
/** A hook that writes `entered` and then waits until `released` exists (no guessed duration). */
const slow = (entered: string, released: string) => `import { existsSync, writeFileSync } from 'node:fs';
import { defineFilter } from '${SDK_SPECIFIER}';
export default defineFilter({
  async inlet({ body }) {
    writeFileSync(${JSON.stringify(entered)}, '');
    while (!existsSync(${JSON.stringify(released)})) await new Promise((resolve) => setTimeout(resolve, 10));
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
    writeFileSync(path.join(root, 'filters', 'slow.ts'), slow(path.join(root, 'entered'), path.join(root, 'released')));
    server = await startServerProcess({
      LOG_LEVEL: 'info', // 'shutting down' tells the test the SIGTERM was handled
      PIPELINES_API_KEY: KEY,
      FILTERS_DIR: path.join(root, 'filters'),
      DATA_DIR: path.join(root, 'data'),
      VALVES_DIR: path.join(root, 'valves'),
    });
  }, 90_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('a stray exception or rejection in a filter is logged and the server keeps serving', async () => {
    expect((await post(server, 'stray')).status).toBe(200);
    await waitFor(() => server.output(), {
      until: (output) =>
        output.includes('uncaught exception (server keeps running)') && output.includes('unhandled rejection'),
    });
    const again = await fetch(`${server.url}/`);
    expect(again.status).toBe(200);
  });

  it('SIGTERM lets a request in flight finish before the process exits', async () => {
    const inFlight = post(server, 'slow');
    await waitFor(() => existsSync(path.join(root, 'entered')));
    const stopped = server.stop();
    // The signal was handled while the hook was still running; now let the hook finish.
    await waitFor(() => server.output().includes('shutting down'));
    writeFileSync(path.join(root, 'released'), '');
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(((await response.json()) as { slow?: string }).slow).toBe('done');
    await stopped;
  });
});

describe('start-up errors', () => {
  it('a port already in use ends the process with status 78 (not retried by the supervisor) and a clear message (not a silent exit 0)', async () => {
    const { spawn } = await import('node:child_process');
    const net = await import('node:net');
    const { repoRoot } = await import('../helpers/create-test-runtime.js');
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    const root = mkdtempSync(path.join(os.tmpdir(), 'eunoe-port-'));
    try {
      const child = spawn(process.execPath, [serverEntry()], {
        cwd: repoRoot,
        env: serverEnv({
          PORT: String(port),
          HOST: '127.0.0.1',
          DATA_DIR: root,
          PIPELINES_API_KEY: 'k',
          PRICING_FETCH: 'false',
          SHIPPED_FILTERS: 'none',
          LOG_LEVEL: 'warn',
          FILTERS_DIR: path.join(root, 'none'),
        }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(code).toBe(78);
      expect(output).toMatch(/cannot listen on 127\.0\.0\.1:\d+.*EADDRINUSE/);
    } finally {
      blocker.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
