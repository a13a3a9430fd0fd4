import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Supervisor } from '../../src/supervisor/supervisor.js';
import { SDK_SPECIFIER } from '../helpers/create-test-runtime.js';
import { freePort } from '../helpers/redis-server.js';
import { serverEntry } from '../helpers/server-process.js';
import { waitFor } from '../helpers/wait-for.js';
import { postInlet } from './helpers/http.js';

const KEY = 'supervisor-filter-key';

/**
 * Ends its server with SIGKILL when the body asks, through a program it runs: the way around the refused
 * `process.kill` that docs/security.md names, and what a native crash in a filter looks like to the supervisor.
 */
const crasher = `import { defineFilter } from '${SDK_SPECIFIER}';
import { spawnSync } from 'node:child_process';
export default defineFilter({
  id: 'crasher',
  inlet({ body }) {
    if (body.crash) spawnSync('kill', ['-9', String(process.pid)]);
    return body;
  },
});
`;

type LogLine = { level: number; msg: string; child?: number; delayMs?: number; filters?: unknown; signal?: string };

/**
 * The supervisor (the class `npm start` runs) over real server processes (`node dist/main.js`): a filter that kills
 * its server again and again is restarted every time, with back-off, and named in the log; only crashes that no
 * filter explains count towards giving up.
 */
describe('the supervisor under a filter that keeps killing its server', () => {
  let root: string;
  let supervisor: Supervisor;
  let base: string;
  const lines: LogLine[] = [];
  let status: number | undefined;

  const pids = () => lines.filter((line) => line.msg === 'server started').map((line) => line.child!);
  const deaths = () => lines.filter((line) => line.msg.startsWith('server died; restarting'));
  /** Wait until the `count`th server answers; fails at once (with the supervisor's log) if the supervisor ended. */
  const up = async (count: number) => {
    await waitFor(
      async () =>
        status !== undefined ||
        (pids().length >= count &&
          (await fetch(`${base}/`).then(
            (response) => response.ok,
            () => false,
          ))),
      { timeoutMs: 60_000, intervalMs: 50 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}\nsupervisor log:\n${lines.map((line) => JSON.stringify(line)).join('\n')}`);
    });
    if (status !== undefined)
      throw new Error(`the supervisor ended (${status}):\n${lines.map((line) => JSON.stringify(line)).join('\n')}`);
  };

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'eunoe-supervisor-filter-'));
    writeFileSync(path.join(root, 'package.json'), '{"type":"module"}\n');
    mkdirSync(path.join(root, 'filters'));
    writeFileSync(path.join(root, 'filters', 'crasher.ts'), crasher);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    supervisor = new Supervisor({
      command: process.execPath,
      args: [serverEntry()],
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        PIPELINES_API_KEY: KEY,
        FILTERS_DIR: path.join(root, 'filters'),
        DATA_DIR: path.join(root, 'data'),
        VALVES_DIR: path.join(root, 'valves'),
        FILTER_ISOLATION: 'worker',
        FILTER_LOAD_TIMEOUT_MS: '60000',
        LOG_LEVEL: 'fatal',
        WATCH_FILTERS: 'false',
        PRICING_FETCH: 'false',
        SHIPPED_FILTERS: 'none',
        REDIS_URL: '',
      },
      // Give up after one quick crash in a row that no filter explains; the back-off doubles from 100 ms up to 200 ms.
      policy: { minDelayMs: 100, maxDelayMs: 200, healthyAfterMs: 600_000, maxQuickCrashes: 1 },
      log: (line) => lines.push(JSON.parse(line) as LogLine),
    });
    supervisor.start();
    void supervisor.done.then((code) => (status = code));
    await up(1);
  }, 90_000);

  afterAll(async () => {
    if (status === undefined) {
      supervisor.stop('SIGTERM');
      await supervisor.done;
    }
    rmSync(root, { recursive: true, force: true });
  });

  it('three kills in a row: restarted each time with back-off, the filter and its hook named each time', async () => {
    for (let crash = 1; crash <= 3; crash++) {
      await postInlet({ url: base }, KEY, 'crasher', { crash: true }).catch(() => undefined);
      await up(crash + 1);
    }
    expect(status).toBeUndefined();
    expect(deaths()).toEqual(
      [100, 200, 200].map((delayMs) =>
        expect.objectContaining({
          level: 50,
          signal: 'SIGKILL',
          delayMs,
          filters: [{ filter: 'crasher', running: 'inlet' }],
          msg: expect.stringMatching(/Filter code was running in a worker when it died: crasher \(inlet\)/),
        }),
      ),
    );
    // The server that came back answers the filter.
    expect((await postInlet({ url: base }, KEY, 'crasher', {})).status).toBe(200);
  }, 180_000);

  it('crashes no filter explains still end in giving up after the policy allows', async () => {
    process.kill(pids().at(-1)!, 'SIGKILL');
    await up(5);
    expect(deaths().at(-1)).toMatchObject({ msg: 'server died; restarting', signal: 'SIGKILL' });
    expect(deaths().at(-1)).not.toHaveProperty('filters');
    process.kill(pids().at(-1)!, 'SIGKILL');
    expect(await supervisor.done).toBe(1);
    expect(lines.at(-1)).toMatchObject({ level: 60, msg: 'server keeps crashing right after start; giving up' });
  }, 120_000);
});
