import { spawn, type ChildProcess } from 'node:child_process';
import { Backoff, type BackoffPolicy } from './backoff.js';

export interface SupervisorOptions {
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  policy?: BackoffPolicy;
  /** One JSON log line (default: stderr). */
  log?: (line: string) => void;
}

/**
 * Runs the server as a child process and starts it again when it dies on its own (a crash,
 * an out-of-memory abort, SIGKILL), with exponential back-off; gives up on a crash loop.
 * SIGTERM/SIGINT are passed to the child, and the supervisor exits with its status.
 */
export class Supervisor {
  private child?: ChildProcess;
  private stopping = false;
  private readonly backoff: Backoff;
  private readonly write: (line: string) => void;
  /** Resolves with the exit status the supervisor should end with. */
  readonly done: Promise<number>;
  private finish!: (code: number) => void;

  constructor(private readonly options: SupervisorOptions) {
    this.backoff = new Backoff(options.policy);
    this.write = options.log ?? ((line) => process.stderr.write(`${line}\n`));
    this.done = new Promise((resolve) => (this.finish = resolve));
  }

  private log(level: number, msg: string, fields: Record<string, unknown> = {}): void {
    this.write(
      JSON.stringify({ level, time: Date.now(), service: 'eunoe-supervisor', pid: process.pid, ...fields, msg }),
    );
  }

  start(): void {
    const startedAt = Date.now();
    const child = spawn(this.options.command, this.options.args, {
      env: this.options.env ?? process.env,
      stdio: 'inherit',
    });
    this.child = child;
    this.log(30, 'server started', { child: child.pid });
    child.on('error', (error) => this.log(50, `cannot start the server: ${error.message}`));
    child.on('exit', (code, signal) => {
      this.child = undefined;
      if (this.stopping || code === 0) {
        this.finish(code ?? 0);
        return;
      }
      const delayMs = this.backoff.next(Date.now() - startedAt);
      if (delayMs === undefined) {
        this.log(60, 'server keeps crashing right after start; giving up', { code, signal });
        this.finish(code ?? 1);
        return;
      }
      this.log(50, 'server died; restarting', { code, signal, delayMs });
      setTimeout(() => {
        if (!this.stopping) this.start();
        else this.finish(0);
      }, delayMs);
    });
  }

  /** Pass `signal` to the server and stop restarting it. */
  stop(signal: NodeJS.Signals): void {
    this.stopping = true;
    if (this.child) this.child.kill(signal);
    else this.finish(0);
  }
}
