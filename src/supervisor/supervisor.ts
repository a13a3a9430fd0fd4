import { spawn, type ChildProcess } from 'node:child_process';
import { Backoff, type BackoffPolicy } from './backoff.js';
import { EXIT_FATAL_CONFIG } from './exit-codes.js';
import { asFilterRunMessage } from '../runtime/host/isolation/crash-witness.js';

/** Filter code that was running in the server (over its IPC channel, crash-witness.ts). */
interface FilterRun {
  filter: string;
  /** `import`, or the hook's name. */
  what: string;
}

export interface SupervisorOptions {
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  policy?: BackoffPolicy;
  /** One JSON log line (default: stderr). */
  log?: (line: string) => void;
  /** After `stop`, a server still running this long is killed (SIGKILL). Default 30 s (its own shutdown takes ≤ 15 s). */
  killAfterMs?: number;
}

/**
 * Runs the server as a child process and starts it again when it dies on its own (a crash,
 * an out-of-memory abort, SIGKILL), with exponential back-off; gives up on a crash loop that no filter explains.
 * The server tells it which filters are running in worker threads (crash-witness.ts): a death while one was running
 * is logged with that filter's name, and never ends the restarts (the server itself is sound).
 * A server that exits with EXIT_FATAL_CONFIG (bad configuration, port in use, data folder held)
 * is not restarted: the supervisor ends at once with that status.
 * SIGTERM/SIGINT are passed to the child, and the supervisor exits with its status. The child gets
 * an IPC channel: it shuts down when the supervisor is gone, even killed with SIGKILL.
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

  /**
   * Write one JSON log line (`level` as pino's: 30 info, 40 warn, 50 error, 60 fatal), its `time` an ISO string like
   * the server's lines (they share one stream).
   */
  log(level: number, msg: string, fields: Record<string, unknown> = {}): void {
    const time = new Date().toISOString();
    this.write(JSON.stringify({ level, time, service: 'eunoe-supervisor', pid: process.pid, ...fields, msg }));
  }

  start(): void {
    const startedAt = Date.now();
    const child = spawn(this.options.command, this.options.args, {
      env: this.options.env ?? process.env,
      stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    });
    this.child = child;
    const running = new Map<number, FilterRun>();
    child.on('message', (message) => {
      const run = asFilterRunMessage(message);
      if (run?.eunoe === 'filter-run') running.set(run.run, { filter: run.filter, what: run.what });
      else if (run) running.delete(run.run);
    });
    this.log(30, 'server started', { child: child.pid });
    child.on('error', (error) => this.log(50, `cannot start the server: ${error.message}`));
    child.on('exit', (code, signal) => {
      this.child = undefined;
      if (this.stopping || code === 0) {
        this.finish(code ?? 0);
        return;
      }
      if (code === EXIT_FATAL_CONFIG) {
        // The server printed why (stderr); starting it again would fail the same way.
        this.log(
          60,
          'server cannot start (configuration, port or data folder; see the message above); not restarting',
          {
            code,
          },
        );
        this.finish(code);
        return;
      }
      // What the server wrote just before it died may still be in the channel: read it before judging the crash.
      void drained(child).then(() => this.restart(Date.now() - startedAt, code, signal, [...running.values()]));
    });
  }

  /** The server died on its own after `uptimeMs`, with `running` filter code in its workers: start it again. */
  private restart(uptimeMs: number, code: number | null, signal: string | null, running: FilterRun[]): void {
    if (this.stopping) {
      this.finish(0);
      return;
    }
    const delayMs = this.backoff.next(uptimeMs, running.length > 0);
    if (delayMs === undefined) {
      this.log(60, 'server keeps crashing right after start; giving up', { code, signal });
      this.finish(code ?? 1);
      return;
    }
    if (running.length) {
      const names = running.map((run) => `${run.filter} (${run.what})`).join(', ');
      this.log(
        50,
        `server died; restarting. Filter code was running in a worker when it died: ${names}. A filter that ends the process (a native crash, a program it runs that signals the server) is the likely cause: fix or remove it`,
        { code, signal, delayMs, filters: running.map((run) => ({ filter: run.filter, running: run.what })) },
      );
    } else this.log(50, 'server died; restarting', { code, signal, delayMs });
    setTimeout(() => {
      if (!this.stopping) this.start();
      else this.finish(0);
    }, delayMs);
  }

  /** Pass `signal` to the server and stop restarting it; kill it if it is still running after `killAfterMs`. */
  stop(signal: NodeJS.Signals): void {
    this.stopping = true;
    const child = this.child;
    if (!child) {
      this.finish(0);
      return;
    }
    child.kill(signal);
    setTimeout(() => {
      if (child.exitCode === null && child.signalCode === null) {
        this.log(50, 'server did not stop in time; killing it', { child: child.pid });
        child.kill('SIGKILL');
      }
    }, this.options.killAfterMs ?? 30_000).unref();
  }
}

/** Resolves once `child`'s IPC channel has delivered everything and closed (at most 1 s after its exit). */
function drained(child: ChildProcess): Promise<void> {
  if (!child.connected) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 1000);
    child.once('disconnect', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
