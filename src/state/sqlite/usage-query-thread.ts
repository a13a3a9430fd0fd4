import { Worker } from 'node:worker_threads';
import { StateUnavailableError, ValidationError } from '../../core/errors/index.js';
import type { UsageRecord } from '../../domain/usage/types.js';

/** The worker could not start (e.g. no TypeScript loader): the caller answers on its own thread instead. */
export class QueryThreadUnavailable extends Error {}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  onChunk?: (chunk: UsageRecord[]) => void | Promise<void>;
}

/**
 * The main thread's side of usage-query-worker.ts: one worker per SQLite file, started on the
 * first query, calls multiplexed by id. A scan's chunks are handed to the visitor one at a
 * time (the worker waits for each to be consumed: backpressure). Errors come back typed.
 */
export class UsageQueryThread {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private ready = false;
  /** True once the worker failed to start; callers then run their queries themselves. */
  broken = false;

  constructor(private readonly file: string) {}

  /** True once the worker was started (by a first query). */
  get started(): boolean {
    return this.worker !== undefined;
  }

  call<T>(op: 'summarize' | 'latest' | 'scan', args: unknown[], onChunk?: Pending['onChunk']): Promise<T> {
    if (this.broken) return Promise.reject(new QueryThreadUnavailable('usage query worker unavailable'));
    const worker = this.start();
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject, onChunk });
      worker.postMessage({ id, op, args });
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
    for (const [, pending] of this.pending) pending.reject(new StateUnavailableError('State store is closed'));
    this.pending.clear();
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(new URL('./usage-query-worker-boot.mjs', import.meta.url), {
      workerData: { file: this.file },
    });
    worker.unref();
    worker.on(
      'message',
      (message: {
        ready?: boolean;
        id: number;
        result?: unknown;
        chunk?: UsageRecord[];
        error?: { name: string; message: string; fields?: Array<{ path: string; message: string }> };
      }) => {
        if (message.ready) {
          this.ready = true;
          return;
        }
        const pending = this.pending.get(message.id);
        if (!pending) return;
        if (message.chunk) {
          void Promise.resolve(pending.onChunk?.(message.chunk))
            .catch((error: Error) => {
              this.pending.delete(message.id); // the worker finishes the scan into the void
              pending.reject(error);
            })
            .finally(() => this.worker?.postMessage({ id: message.id, op: 'next' }));
          return;
        }
        this.pending.delete(message.id);
        if (!message.error) return pending.resolve(message.result);
        pending.reject(
          message.error.name === 'ValidationError'
            ? new ValidationError(message.error.message, message.error.fields)
            : new StateUnavailableError(`SQLite usage query on ${this.file}: ${message.error.message}`),
        );
      },
    );
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', () => this.fail(new StateUnavailableError(`usage query worker for ${this.file} stopped`)));
    this.worker = worker;
    return worker;
  }

  private fail(error: Error): void {
    this.worker = undefined;
    if (!this.ready) this.broken = true;
    const reason = !this.ready
      ? new QueryThreadUnavailable(`usage query worker did not start: ${error.message}`)
      : error instanceof StateUnavailableError
        ? error
        : new StateUnavailableError(error.message, { cause: error });
    for (const [, pending] of this.pending) pending.reject(reason);
    this.pending.clear();
  }
}
