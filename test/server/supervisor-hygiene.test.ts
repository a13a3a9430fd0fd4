import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/create-test-runtime.js';
import { freePort } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait-for.js';
import { serverEnv } from '../../bench/lib/server-env.js';

/** True while `pid` runs (a zombie waiting to be reaped counts as gone). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** The supervisor's `server started` lines: its own pid and the server's. */
function starts(output: string): Array<{ pid: number; child: number }> {
  return output
    .split('\n')
    .filter((line) => line.includes('"eunoe-supervisor"') && line.includes('"server started"'))
    .map((line) => JSON.parse(line) as { pid: number; child: number });
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Started {
  process: ChildProcess;
  output: () => string;
  exit: Promise<number | null>;
}

/** Spawn `command` with the server's environment on `port`; every process it leaves is killed after the test. */
function launch(command: string, args: string[], options: { cwd: string; port: number; env?: Record<string, string> }) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'eunoe-hygiene-'));
  let output = '';
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: serverEnv({
      PORT: String(options.port),
      HOST: '127.0.0.1',
      PIPELINES_API_KEY: 'k',
      LOG_LEVEL: 'warn',
      WATCH_FILTERS: 'false',
      PRICING_FETCH: 'false',
      SHIPPED_FILTERS: 'none',
      REDIS_URL: '',
      DATA_DIR: path.join(root, 'data'),
      VALVES_DIR: path.join(root, 'valves'),
      FILTERS_DIR: root,
      ...options.env,
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk) => (output += String(chunk)));
  child.stderr?.on('data', (chunk) => (output += String(chunk)));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  cleanups.push(() => {
    for (const pid of [child.pid, ...starts(output).flatMap((entry) => [entry.pid, entry.child])])
      if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
    rmSync(root, { recursive: true, force: true });
  });
  return { process: child, output: () => output, exit } satisfies Started;
}

/** `node dist/supervisor/main.js` (what `npm start` runs), from this checkout. */
const supervisorArgs = [path.join(repoRoot, 'dist/supervisor/main.js')];

const answers = (port: number) =>
  fetch(`http://127.0.0.1:${port}/`).then(
    (response) => response.ok,
    () => false,
  );

describe('the supervisor ends with its parent, and does not retry what a restart cannot fix', () => {
  it('kill -9 of `npm start`’s npm process: the supervisor and the server both exit', async () => {
    // `npm start` in this checkout: its data, valves and filters folders are temporary ones (see launch), so nothing
    // here is written, and the sources' compiled forms are tsx's cached ones (a copy of the package compiles anew).
    const port = await freePort();
    const npm = launch('npm', ['start', '--silent'], { cwd: repoRoot, port });
    // Liveness bounds: a Node + tsx start on a busy 2-core machine can take many seconds.
    await waitFor(() => answers(port), { until: Boolean, timeoutMs: 90_000, intervalMs: 100 });
    const [started] = starts(npm.output());
    expect(started).toBeDefined();
    const { pid: supervisor, child: server } = started!;
    expect(supervisor).not.toBe(npm.process.pid); // npm runs the script through a shell: npm → sh → supervisor
    expect(alive(supervisor) && alive(server)).toBe(true);

    process.kill(npm.process.pid!, 'SIGKILL');
    await npm.exit;
    await waitFor(() => !alive(supervisor) && !alive(server), { until: Boolean, timeoutMs: 45_000, intervalMs: 100 });
    expect(npm.output()).toContain('the process that started the supervisor is gone; stopping the server');
    expect(await answers(port)).toBe(false);
  }, 150_000);

  it('kill -9 of the supervisor: the server exits too', async () => {
    const port = await freePort();
    const run = launch(process.execPath, supervisorArgs, { cwd: repoRoot, port });
    await waitFor(() => answers(port), { until: Boolean, timeoutMs: 90_000, intervalMs: 100 });
    const [started] = starts(run.output());
    process.kill(started!.pid, 'SIGKILL');
    await run.exit;
    await waitFor(() => !alive(started!.child), { until: Boolean, timeoutMs: 45_000, intervalMs: 100 });
    expect(await answers(port)).toBe(false);
  }, 150_000);

  it('a port already in use: the supervisor exits at once with the message and status 78, after one start', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => taken.close(() => resolve())));
    const port = (taken.address() as net.AddressInfo).port;
    const run = launch(process.execPath, supervisorArgs, { cwd: repoRoot, port });
    expect(await run.exit).toBe(78);
    expect(run.output()).toContain(`Eunoe failed to start: cannot listen on 127.0.0.1:${port} (EADDRINUSE`);
    expect(run.output()).toContain('not restarting');
    expect(run.output()).not.toContain('server died');
    expect(starts(run.output())).toHaveLength(1);
  }, 120_000);

  it('a configuration error (an unknown SHIPPED_FILTERS id) ends it the same way', async () => {
    const port = await freePort();
    const run = launch(process.execPath, supervisorArgs, { cwd: repoRoot, port, env: { SHIPPED_FILTERS: 'nope' } });
    expect(await run.exit).toBe(78);
    expect(run.output()).toContain('SHIPPED_FILTERS: unknown filter "nope"');
    expect(starts(run.output())).toHaveLength(1);
  }, 120_000);
});
