import { MessageChannel, Worker } from 'node:worker_threads';
import { serveSyncCalls } from './sync-calls.js';
import { FilterLoadError } from '../load-filter-file.js';
import type { Logger } from '../../../core/util/logger.js';
import type { HostServices } from '../types.js';
import { writeWorkerLog } from './host-rpc.js';
import type { LoadedMessage, LoadFailedMessage, WorkerStart, WorkerToHost } from './worker-protocol.js';
import { HEARTBEAT_BYTES } from './memory-guard.js';
import { errorMessage } from '../../../core/util/error-message.js';
import { witnessFilterRun } from './crash-witness.js';
import path from 'node:path';

export interface FilterWorkerOptions {
  file: string;
  services: HostServices;
  logger: Logger;
  /** Longest an import (and a lifecycle hook) may take in the worker. */
  loadTimeoutMs: number;
  /**
   * What each worker may hold, in MB: `resourceLimits.maxOldGenerationSizeMb` for its V8 heap, and its
   * heap plus the memory outside it (Buffers, ArrayBuffers) sampled by the worker (memory-guard.ts).
   */
  maxMemoryMb: number;
}

const BOOTSTRAP = new URL('./worker-bootstrap.mjs', import.meta.url);

/** A worker past its memory limit, in the heap (V8's out-of-memory) or outside it (memory-guard.ts). */
export function outOfMemory(maxMemoryMb: number): string {
  return `ran out of memory (worker limit ${maxMemoryMb} MB)`;
}

/** Why a worker died, for logs and answers. */
export function describeDeath(error: unknown, maxMemoryMb: number): string {
  if ((error as { code?: string })?.code === 'ERR_WORKER_OUT_OF_MEMORY') return outOfMemory(maxMemoryMb);
  return `crashed: ${errorMessage(error)}`;
}

/** Start a worker on `file` and wait until it imported the file (or failed, or ran out of time). */
export function spawn(
  options: FilterWorkerOptions,
): Promise<{ worker: Worker; metadata: LoadedMessage; heartbeat: Float64Array }> {
  const services = Object.entries(options.services)
    .filter(([name, value]) => value && name !== 'provided')
    .map(([name]) => name);
  const provided = Object.keys(options.services.provided ?? {});
  const ended = witnessFilterRun(path.basename(options.file), 'import');
  const sync = new MessageChannel();
  const syncFlag = new SharedArrayBuffer(4);
  const heartbeat = new SharedArrayBuffer(HEARTBEAT_BYTES);
  serveSyncCalls(sync.port1, new Int32Array(syncFlag), options.services);
  const worker = new Worker(BOOTSTRAP, {
    workerData: {
      file: options.file,
      services,
      provided,
      syncPort: sync.port2,
      syncFlag,
      maxMemoryMb: options.maxMemoryMb,
      heartbeat,
    } satisfies WorkerStart,
    transferList: [sync.port2],
    execArgv: [],
    resourceLimits: { maxOldGenerationSizeMb: options.maxMemoryMb },
  });
  worker.once('exit', () => sync.port1.close());
  return new Promise((resolve, reject) => {
    const fail = (message: string, line?: number, kind?: LoadFailedMessage['kind']) => {
      cleanup();
      void worker.terminate();
      reject(new FilterLoadError(options.file, message, line, kind));
    };
    const timer = setTimeout(
      () =>
        fail(
          `import did not finish within ${options.loadTimeoutMs} ms (FILTER_LOAD_TIMEOUT_MS): an endless loop or a blocking call at import? The file was not loaded`,
        ),
      options.loadTimeoutMs,
    );
    const onMessage = (message: WorkerToHost) => {
      if (message.type === 'loaded') {
        cleanup();
        resolve({ worker, metadata: message, heartbeat: new Float64Array(heartbeat) });
      } else if (message.type === 'load-failed') fail(message.error, message.line, message.kind);
      else if (message.type === 'memory') fail(`import ${outOfMemory(options.maxMemoryMb)}`);
      else if (message.type === 'log') writeWorkerLog(options.logger, message);
    };
    const onError = (error: Error) => fail(`import ${describeDeath(error, options.maxMemoryMb)}`);
    const onExit = (code: number) => fail(`the worker exited with code ${code} while importing`);
    const cleanup = () => {
      ended();
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
  });
}
