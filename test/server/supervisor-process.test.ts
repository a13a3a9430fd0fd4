import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/create-test-runtime.js';
import { freePort } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait-for.js';
import { serverEnv } from '../../bench/lib/server-env.js';

/** Pids of the servers the supervisor started, from its `server started` log lines. */
function childPids(output: string): number[] {
  return output
    .split('\n')
    .filter((line) => line.includes('"eunoe-supervisor"') && line.includes('"server started"'))
    .map((line) => (JSON.parse(line) as { child: number }).child);
}

/**
 * The supervisor brings the server back after it is killed. Run here from the TypeScript source (`node --import tsx
 * src/supervisor/main.ts`, which runs `src/main.ts` under tsx): the other process tests run the compiled dist/, as
 * `npm start` does, and this one keeps the source start working (`npm run dev`, a checkout without dist/).
 */
describe('the supervisor', () => {
  let root: string;
  let supervisor: ChildProcess;
  let base: string;
  let output = '';
  let exit: Promise<number | null>;

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'eunoe-supervisor-'));
    mkdirSync(path.join(root, 'filters'));
    writeFileSync(path.join(root, 'package.json'), '{"type":"module"}\n');
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    supervisor = spawn(
      process.execPath,
      ['--import', import.meta.resolve('tsx'), path.join(repoRoot, 'src/supervisor/main.ts')],
      {
        cwd: root,
        env: serverEnv({
          PORT: String(port),
          HOST: '127.0.0.1',
          PIPELINES_API_KEY: 'k',
          LOG_LEVEL: 'warn',
          WATCH_FILTERS: 'false',
          PRICING_FETCH: 'false',
          SHIPPED_FILTERS: 'none',
          REDIS_URL: '',
        }),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    supervisor.stdout?.on('data', (chunk) => (output += String(chunk)));
    supervisor.stderr?.on('data', (chunk) => (output += String(chunk)));
    exit = new Promise((resolve) => supervisor.on('exit', (code) => resolve(code)));
    await waitFor(
      () =>
        fetch(`${base}/`).then(
          (response) => response.status,
          () => 0,
        ),
      { until: (status) => status === 200, timeoutMs: 60_000 },
    );
  }, 90_000);

  afterAll(() => {
    if (supervisor.exitCode === null) supervisor.kill('SIGKILL');
    for (const pid of childPids(output)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    rmSync(root, { recursive: true, force: true });
  });

  it('restarts a server killed with SIGKILL, then stops cleanly on SIGTERM', async () => {
    const [first] = childPids(output);
    expect(first).toBeTypeOf('number');
    process.kill(first!, 'SIGKILL');
    const pids = await waitFor(async () => childPids(output), { until: (list) => list.length >= 2, timeoutMs: 60_000 });
    expect(pids[1]).not.toBe(first);
    expect(output).toContain('server died; restarting');
    const status = await waitFor(
      () =>
        fetch(`${base}/`).then(
          (response) => response.status,
          () => 0,
        ),
      { until: (code) => code === 200, timeoutMs: 60_000 },
    );
    expect(status).toBe(200);
    supervisor.kill('SIGTERM');
    expect(await exit).toBe(0);
    expect(childPids(output)).toHaveLength(2);
  }, 60_000);
});
