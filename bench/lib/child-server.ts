import { type ChildProcess, fork, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { freePort } from './free-port.js';
import { serverEnv } from './server-env.js';

/** A server running in a child process started by the bench: its URL, its CPU time, and a stop. */
export interface ChildServer {
  url: string;
  pid: number;
  /** CPU time (user + system) the process has used so far, in ms (from /proc; 10 ms resolution). */
  cpuMs(): number;
  stop(): Promise<void>;
}

const TICKS_PER_SECOND = 100;

/** User + system CPU of a process from `/proc/<pid>/stat`, in ms (Linux). */
export function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start at the closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

function stopper(child: ChildProcess): () => Promise<void> {
  return async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited(child);
    clearTimeout(timer);
  };
}

/** Fork a TypeScript entry (run through tsx) that sends `{url}` over IPC once it listens. */
export async function forkServer(entry: string, args: string[], execArgv: string[] = []): Promise<ChildServer> {
  const child = fork(entry, args, {
    env: serverEnv({}),
    execArgv: ['--import', 'tsx', ...execArgv],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { url: string }).url));
    child.once('exit', (code) => reject(new Error(`${entry} exited with ${code} before listening`)));
  });
  return { url, pid: child.pid!, cpuMs: () => processCpuMs(child.pid!), stop: stopper(child) };
}

/**
 * Start Eunoe's real server entry (`src/main.ts`) with `env` on a free loopback port and wait until
 * `GET /readyz` answers 200 (filters loaded, store up).
 */
export async function startServerEntry(
  entry: string,
  env: Record<string, string>,
  execArgv: string[] = [],
): Promise<ChildServer> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', ...execArgv, entry], {
    env: serverEnv({ ...env, PORT: String(port), HOST: '127.0.0.1' }),
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${entry} exited with ${child.exitCode} before it was ready`);
    const ready = await fetch(`${url}/readyz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${entry} not ready after 60 s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url, pid: child.pid!, cpuMs: () => processCpuMs(child.pid!), stop: stopper(child) };
}
