import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort } from './redis-server.js';
import { serverEnv } from '../../bench/lib/server-env.js';
import { repoRoot } from './create-test-runtime.js';
import { waitFor } from './wait-for.js';

/**
 * The server's entry as `npm start` runs it: `dist/main.js`, the sources compiled by scripts/build.mjs (the suite's
 * global setup compiles them once; a copy of the package carries its own dist/).
 */
export const serverEntry = (root: string = repoRoot): string => path.join(root, 'dist/main.js');

/** A real Eunoe server process on loopback (`node dist/main.js`). */
export interface ServerProcess {
  url: string;
  port: number;
  /** The server's process id (to read its memory figures in /proc). */
  pid: number;
  output: () => string;
  stop(): Promise<void>;
  /** Kill the process with SIGKILL (no shutdown code runs) and wait until it is gone. */
  kill(): Promise<void>;
}

/**
 * Start the server with `env` on a free port and wait until `GET /` answers. `root`: another copy of the
 * package to run (its `dist/main.js`, in that folder; default this checkout). The server gets the test's environment
 * without any Eunoe setting (see serverEnv: a REDIS_URL of the shell that ran the tests does not reach it), then
 * `env`; `inherit` stands for the test's environment (default process.env).
 */
export async function startServerProcess(
  env: Record<string, string>,
  options: { root?: string; inherit?: NodeJS.ProcessEnv } = {},
): Promise<ServerProcess> {
  const port = await freePort();
  const root = options.root ?? repoRoot;
  let output = '';
  const child: ChildProcess = spawn(process.execPath, [serverEntry(root)], {
    cwd: root,
    env: serverEnv(
      {
        LOG_LEVEL: 'warn',
        PRICING_FETCH: 'false',
        SHIPPED_FILTERS: 'none', // tests choose their filters; SHIPPED_FILTERS=all is tested on its own
        // A liveness bound, not the subject (a worker's import of tsx + zod takes seconds on a busy machine); tests of
        // the import limit set their own.
        FILTER_LOAD_TIMEOUT_MS: '60000',
        // Admin valves beside the test's data, not in this checkout's valves/ folder (which a server makes private).
        ...(env.DATA_DIR && !env.VALVES_DIR ? { VALVES_DIR: path.join(env.DATA_DIR, 'valves') } : {}),
        ...env,
        PORT: String(port),
        HOST: '127.0.0.1',
      },
      options.inherit,
    ),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}`;
  const answers = () =>
    fetch(`${url}/`).then(
      (response) => response.ok,
      () => false, // not up yet
    );
  try {
    // A liveness bound: a server start on a busy 2-core machine can take many seconds.
    await waitFor(async () => child.exitCode !== null || (await answers()), { timeoutMs: 60_000, intervalMs: 50 });
  } catch {
    child.kill('SIGKILL');
    throw new Error(`server did not start in time:\n${output}`);
  }
  if (child.exitCode !== null) throw new Error(`server exited early (${child.exitCode}):\n${output}`);
  return {
    url,
    port,
    pid: child.pid!,
    output: () => output,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5000).unref();
      }),
    kill: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}
