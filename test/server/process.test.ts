import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyShippedFilter } from '../helpers/create-test-runtime.js';
import { freePort } from '../helpers/redis-server.js';
import { serverEntry } from '../helpers/server-process.js';
import { filterSource, lifecycleFilter } from './helpers/filter-source.js';
import { waitFor } from '../helpers/wait-for.js';
import { serverEnv } from '../../bench/lib/server-env.js';

const KEY = 'process-test-key';

/**
 * The real server process (`node dist/main.js`, as `npm start` runs it) on a
 * loopback port: filters load under tsx (not vitest's transformer), startup runs before the
 * port answers, SIGTERM shuts filters down and exits 0.
 */
describe('the server process', () => {
  let root: string;
  let child: ChildProcess;
  let base: string;
  let logFile: string;
  let exit: Promise<number | null>;
  let stderr = '';

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'eunoe-process-'));
    const filtersDir = path.join(root, 'filters');
    mkdirSync(filtersDir);
    writeFileSync(path.join(root, 'package.json'), '{"type":"module"}\n');
    logFile = path.join(root, 'lifecycle.log');
    writeFileSync(logFile, '');
    copyShippedFilter('turn-limit.ts', filtersDir);
    writeFileSync(path.join(filtersDir, 'life.ts'), lifecycleFilter(logFile, 'life'));
    writeFileSync(
      path.join(filtersDir, 'syntax-error.ts'),
      filterSource(`export default defineFilter({
  name: 'Broken',
  inlet({ body ) { return body; },
});`),
    );
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, [serverEntry()], {
      cwd: root,
      env: serverEnv({
        PORT: String(port),
        HOST: '127.0.0.1',
        PIPELINES_API_KEY: KEY,
        LOG_LEVEL: 'warn',
        WATCH_FILTERS: 'false',
        PRICING_FETCH: 'false',
        SHIPPED_FILTERS: 'none',
        REDIS_URL: '',
        // A liveness bound, not the subject: the 'life' filter's worker imports tsx and zod, seconds on a busy machine.
        FILTER_LOAD_TIMEOUT_MS: '60000',
      }),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr?.on('data', (chunk) => (stderr += String(chunk)));
    exit = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
    await waitFor(
      () =>
        fetch(`${base}/`).then(
          (response) => response.status,
          () => 0,
        ),
      { until: (status) => status === 200 || child.exitCode !== null, timeoutMs: 60_000 },
    );
    if (child.exitCode !== null) throw new Error(`server exited early: ${stderr}`);
  }, 90_000);

  afterAll(async () => {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(root, { recursive: true, force: true });
  });

  const events = () =>
    readFileSync(logFile, 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));

  it('onStartup finished before the port answered', () => {
    expect(events()).toEqual([{ tag: 'life', event: 'startup', level: 1 }]);
  });

  it('serves the contract over a real socket: status, auth, models, inlet', async () => {
    expect(await (await fetch(`${base}/v1`)).json()).toEqual({ status: true });
    const denied = await fetch(`${base}/models`);
    expect(denied.status).toBe(401);
    expect(denied.headers.get('content-type')).toMatch(/^application\/json/);
    const models = (await (
      await fetch(`${base}/v1/models`, { headers: { Authorization: `Bearer ${KEY}` } })
    ).json()) as { pipelines: boolean; data: Array<{ id: string }> };
    expect(models.pipelines).toBe(true);
    expect(models.data.map((model: { id: string }) => model.id).sort()).toEqual(['life', 'turn-limit']);
    const body = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] };
    const inlet = await fetch(`${base}/turn-limit/filter/inlet`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ body, user: { id: 'u', role: 'user' } }),
    });
    expect(inlet.status).toBe(200);
    expect(inlet.headers.get('x-process-time')).toMatch(/^\d+$/);
    expect(await inlet.json()).toEqual(body);
  });

  it('a broken file is listed failed with its line under tsx too', async () => {
    const list = (await (await fetch(`${base}/pipelines`, { headers: { Authorization: `Bearer ${KEY}` } })).json()) as {
      data: Array<{ id: string }>;
    };
    const failed = list.data.find((entry: { id: string }) => entry.id === 'syntax-error');
    expect(failed).toMatchObject({ status: 'failed', line: 4 });
  });

  it('SIGTERM runs onShutdown and exits 0', async () => {
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
    expect(events().map((event) => event.event)).toEqual(['startup', 'shutdown']);
  });
});
