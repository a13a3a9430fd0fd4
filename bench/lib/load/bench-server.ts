import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { freePort } from '../free-port.js';
import { serverEnv } from '../server-env.js';
import path from 'node:path';

/** A real Eunoe server process on 127.0.0.1 for the load benchmark. */
export interface BenchServer {
  url: string;
  pid: number;
  /** Resident set size of the server process in MiB (Linux /proc). */
  rssMb(): number;
  stop(): Promise<void>;
}

/** Start `<codeRoot>/src/main.ts` with `env` on a free loopback port; resolves once `GET /` answers (at most 30 s). */
export async function startBenchServer(codeRoot: string, env: Record<string, string>): Promise<BenchServer> {
  const port = await freePort();
  let output = '';
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', path.join(codeRoot, 'src/main.ts')], {
    cwd: codeRoot,
    env: serverEnv({
      LOG_LEVEL: 'warn',
      PRICING_FETCH: 'false',
      WATCH_FILTERS: 'false',
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk) => (output = (output + chunk).slice(-4000)));
  child.stderr?.on('data', (chunk) => (output = (output + chunk).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early (${child.exitCode}):\n${output}`);
    const up = await fetch(`${url}/`).then(
      (response) => response.ok,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not start in time:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    pid: child.pid!,
    rssMb() {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 'NaN');
      return kb / 1024;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5000).unref();
      }),
  };
}
