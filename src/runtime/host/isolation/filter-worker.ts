import type { Worker } from 'node:worker_threads';
import type { FilterEvent } from '../types.js';
import { EunoeError, FilterCrashedError, FilterTimeoutError } from '../../../core/errors/index.js';
import { runHostRpc, writeWorkerLog, type CallContext } from './host-rpc.js';
import { servicesWithoutUser } from '../user-scoped-services.js';
import { describeDeath, outOfMemory, spawn, type FilterWorkerOptions } from './spawn-worker.js';
import { MemoryWatch } from './memory-watch.js';
import {
  toWireError,
  type CallMessage,
  type HookName,
  type HostToWorker,
  type LoadedMessage,
  type WireError,
  type WorkerToHost,
} from './worker-protocol.js';
import { errorMessage } from '../../../core/util/error-message.js';
import { witnessFilterRun } from './crash-witness.js';

export type { FilterWorkerOptions } from './spawn-worker.js';

const megabytes = (bytes: number) => Math.round(bytes / 1024 / 1024);

interface PendingCall {
  worker: Worker;
  context: CallContext;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

/**
 * An error a hook threw in the worker, as the host raises it (FilterError keeps its status). Its
 * stack is the worker's: the filter file's own frames, for the logs (answers carry the message only).
 */
function fromWire(error: WireError | undefined): Error {
  const status = error?.status;
  const raised =
    typeof status === 'number' && Number.isInteger(status) && status >= 400 && status <= 599
      ? new EunoeError(error?.code ?? 'ERR_FILTER_REJECTED', error?.message ?? 'filter error', status)
      : new Error(error?.message ?? 'filter error');
  if (error?.stack) raised.stack = `${error.stack}\n    (thrown in the isolated filter's worker thread)`;
  return raised;
}

/**
 * One isolated filter: its file runs in a worker thread with memory limits. A call past its
 * deadline terminates the worker (a synchronous loop cannot block the server); a worker that
 * dies is replaced (its onStartup run again) and the calls it held fail with a typed error.
 */
export class FilterWorker {
  private worker?: Worker;
  private starting?: Promise<Worker>;
  private readonly calls = new Map<number, PendingCall>();
  private nextCall = 0;
  private closed = false;
  /** Called when the last call in flight settles (close() waits for it). */
  private drained?: () => void;
  private crashes = 0;
  /** onStartup's arguments while the filter is started, replayed in a replacement worker. */
  private started?: { args: Record<string, unknown>; context: CallContext };
  /** Used for requests of the worker's own timers (no call in flight). */
  private fallback?: CallContext;
  /** The current worker's memory samples, and the host's watch on them while calls are in flight. */
  private heartbeat?: Float64Array;
  private readonly watch: MemoryWatch;
  id: string;

  private constructor(
    private readonly options: FilterWorkerOptions,
    readonly metadata: LoadedMessage,
    spawned: { worker: Worker; heartbeat: Float64Array },
  ) {
    this.id = metadata.id;
    // A worker whose event loop is blocked cannot report itself: the host judges it from outside.
    this.watch = new MemoryWatch(
      options.maxMemoryMb * 1024 * 1024,
      () => this.calls.size > 0,
      (growth) => {
        if (this.worker)
          this.overLimit(this.worker, {
            heldMb: megabytes(growth.heldBytes),
            processGrewMb: megabytes(growth.grownBytes),
            silentMs: growth.silentMs,
          });
      },
    );
    this.adopt(spawned.worker, spawned.heartbeat);
  }

  /** Import `file` in a new worker; throws FilterLoadError when it fails or takes too long. */
  static async start(options: FilterWorkerOptions): Promise<FilterWorker> {
    const spawned = await spawn(options);
    return new FilterWorker(options, spawned.metadata, spawned);
  }

  /**
   * Run a hook in the worker. `signal` aborting with a FilterTimeoutError terminates the worker
   * (and replaces it); any other abort is passed on to the hook's own signal. `timeLimitMs`
   * bounds lifecycle hooks the same way.
   */
  async call(
    hook: HookName,
    args: CallMessage['args'],
    context: CallContext,
    limits: { signal?: AbortSignal; timeLimitMs?: number } = {},
  ): Promise<unknown> {
    if (this.closed) throw new FilterCrashedError(this.id, `Filter ${this.id} was unloaded`);
    this.fallback = context;
    const worker = await this.ready();
    const callId = ++this.nextCall;
    let timer: NodeJS.Timeout | undefined;
    const onAbort = () => {
      const reason = limits.signal?.reason;
      if (reason instanceof FilterTimeoutError) {
        this.settle(callId, reason);
        this.replace(worker, `${hook} ran past its deadline`);
      } else {
        this.send(worker, { type: 'abort', callId, reason: String(errorMessage(reason) ?? reason) });
      }
    };
    const result = new Promise<unknown>((resolve, reject) => {
      this.calls.set(callId, { worker, context, resolve, reject });
    });
    if (limits.timeLimitMs) {
      timer = setTimeout(() => {
        this.settle(callId, new FilterTimeoutError(this.id, hook, limits.timeLimitMs!));
        this.replace(worker, `${hook} ran past ${limits.timeLimitMs} ms`);
      }, limits.timeLimitMs);
    }
    limits.signal?.addEventListener('abort', onAbort, { once: true });
    // The supervisor knows which filter runs before the worker does (a filter that kills the process is named).
    const ended = witnessFilterRun(this.id, hook);
    this.send(worker, { type: 'call', callId, hook, args });
    if (this.calls.has(callId) && this.heartbeat) this.watch.start(this.heartbeat);
    if (limits.signal?.aborted) onAbort();
    try {
      const value = await result;
      this.crashes = 0;
      if (hook === 'onStartup' || hook === 'onValvesUpdated') this.started = { args, context };
      if (hook === 'onShutdown') this.started = undefined;
      return value;
    } finally {
      ended();
      clearTimeout(timer);
      limits.signal?.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Terminate for good (filter unloaded or server stopping). Calls in flight may finish first,
   * for at most `loadTimeoutMs`; new calls are refused at once.
   */
  async close(): Promise<void> {
    this.closed = true;
    if (this.calls.size > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.options.loadTimeoutMs);
        this.drained = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    const worker = this.worker;
    this.worker = undefined;
    if (worker) {
      this.failCalls(worker, new FilterCrashedError(this.id, `Filter ${this.id} was unloaded`));
      await worker.terminate();
    }
  }

  /** The live worker, started again first when it died. */
  async ready(): Promise<Worker> {
    if (this.worker) return this.worker;
    if (this.closed) throw new FilterCrashedError(this.id, `Filter ${this.id} was unloaded`);
    this.starting ??= this.respawn().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async respawn(): Promise<Worker> {
    let spawned: Awaited<ReturnType<typeof spawn>>;
    try {
      spawned = await spawn(this.options);
    } catch (error) {
      throw new FilterCrashedError(this.id, `Filter ${this.id} could not be restarted: ${errorMessage(error)}`);
    }
    if (this.closed) {
      await spawned.worker.terminate();
      throw new FilterCrashedError(this.id, `Filter ${this.id} was unloaded`);
    }
    this.adopt(spawned.worker, spawned.heartbeat);
    this.options.logger.warn({ filter: this.id }, 'isolated filter worker replaced');
    const started = this.started;
    if (started) {
      await this.call('onStartup', started.args, started.context, { timeLimitMs: this.options.loadTimeoutMs }).catch(
        (error) =>
          this.options.logger.error(
            { filter: this.id, err: errorMessage(error) },
            'onStartup failed in the replacement worker',
          ),
      );
    }
    return spawned.worker;
  }

  private adopt(worker: Worker, heartbeat: Float64Array): void {
    this.worker = worker;
    this.heartbeat = heartbeat;
    worker.on('message', (message: WorkerToHost) => this.onMessage(worker, message));
    worker.on('error', (error) => this.onDeath(worker, describeDeath(error, this.options.maxMemoryMb)));
    worker.on('exit', (code) => this.onDeath(worker, `exited with code ${code}`));
  }

  /** Kill `worker` (if still current) and start its replacement in the background. */
  private replace(worker: Worker, why: string): void {
    if (this.worker !== worker) return;
    this.onDeath(worker, `was restarted: ${why}`);
    void worker.terminate();
  }

  /** `worker` holds more than its limit: ended like a heap out-of-memory (the same error), then replaced. */
  private overLimit(worker: Worker, figures: Record<string, number>): void {
    if (this.worker !== worker) return;
    this.options.logger.error(
      { filter: this.id, limitMb: this.options.maxMemoryMb, ...figures },
      'isolated filter worker over its memory limit',
    );
    this.onDeath(worker, outOfMemory(this.options.maxMemoryMb));
    void worker.terminate();
  }

  private onDeath(worker: Worker, why: string): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    this.heartbeat = undefined;
    this.watch.stop();
    this.failCalls(worker, new FilterCrashedError(this.id, `Filter ${this.id} ${why}; its worker was replaced`));
    if (this.closed) return;
    this.options.logger.error({ filter: this.id, reason: why }, 'isolated filter worker stopped');
    // Replace it now (a crash loop backs off; a request arriving meanwhile starts one at once).
    const delay = Math.min(30_000, 50 * (2 ** this.crashes++ - 1));
    setTimeout(() => void this.ready().catch(() => undefined), delay).unref();
  }

  private failCalls(worker: Worker, error: Error): void {
    for (const [callId, pending] of this.calls) if (pending.worker === worker) this.settle(callId, error);
  }

  private settle(callId: number, error: Error | undefined, value?: unknown): void {
    const pending = this.calls.get(callId);
    if (!pending) return;
    this.calls.delete(callId);
    if (this.calls.size === 0) this.drained?.();
    if (error) pending.reject(error);
    else pending.resolve(value);
  }

  private send(worker: Worker, message: HostToWorker): void {
    try {
      worker.postMessage(message);
    } catch (error) {
      if (message.type === 'call')
        this.settle(
          message.callId,
          new Error(`arguments cannot be sent to an isolated filter: ${errorMessage(error)}`),
        );
    }
  }

  private onMessage(worker: Worker, message: WorkerToHost): void {
    if (message.type === 'result') {
      this.settle(message.callId, message.ok ? undefined : fromWire(message.error), message.value);
    } else if (message.type === 'memory') {
      // What the heap limit cannot see (Buffers, ArrayBuffers), as the worker measured it.
      this.overLimit(worker, {
        heapMb: megabytes(message.heapBytes),
        outsideHeapMb: megabytes(message.externalBytes),
      });
    } else if (message.type === 'event') {
      // Checked again by the sink (cleanEvent): the worker's data is the filter's, not ours.
      this.calls.get(message.callId)?.context.emit?.(message.event as FilterEvent);
    } else if (message.type === 'log') {
      const context = this.calls.get(message.callId)?.context ?? this.fallback;
      writeWorkerLog(context?.logger ?? this.options.logger, message);
    } else if (message.type === 'rpc') {
      // A call that already ended (work a hook left running) has no user any more: it writes no money.
      const live = this.calls.get(message.callId)?.context;
      const context =
        live ?? (this.fallback && { ...this.fallback, services: servicesWithoutUser(this.fallback.services) });
      if (!context) {
        this.send(worker, {
          type: 'rpc-result',
          rpcId: message.rpcId,
          ok: false,
          error: { message: 'no host context yet' },
        });
        return;
      }
      runHostRpc(context, message).then(
        (value) => this.send(worker, { type: 'rpc-result', rpcId: message.rpcId, ok: true, value }),
        (error) =>
          this.send(worker, { type: 'rpc-result', rpcId: message.rpcId, ok: false, error: toWireError(error) }),
      );
    }
  }
}
