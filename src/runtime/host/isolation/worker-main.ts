/**
 * The loop of a filter worker thread: import the filter file once (reporting its metadata or
 * why it failed), then run hook calls from the host with proxies for state, services, logger
 * and flags. A stray throw in the filter's own timers is logged, never fatal.
 */
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { z } from 'zod';
import { FilterLoadError, loadFilterFile, type LoadedModule } from '../load-filter-file.js';
import { flagsFromSnapshot, loggerProxy, servicesProxy, stateProxy, type Rpc } from './worker-proxies.js';
import {
  toWireError,
  type CallMessage,
  type HookName,
  type HostToWorker,
  type WorkerToHost,
} from './worker-protocol.js';
import type { WorkerStart } from './worker-protocol.js';
import { syncCaller } from './sync-calls.js';
import { startMemoryGuard } from './memory-guard.js';
import { errorMessage, errorStack } from '../../../core/util/error-message.js';
import { guardWorkerProcess } from './process-guard.js';
import { HOOKS, isRequestHook, LIFECYCLE_HOOKS } from '../../../core/messages/hooks.js';

const port = parentPort!;
const start = workerData as WorkerStart;
const post = (message: WorkerToHost) => port.postMessage(message);
const syncCall = syncCaller(start.syncPort, new Int32Array(start.syncFlag));

let nextRpc = 0;
const pendingRpc = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
const aborts = new Map<number, AbortController>();
// Before the filter's import: its memory counts from the start (heap + Buffers and ArrayBuffers).
const memory = startMemoryGuard(start.maxMemoryMb * 1024 * 1024, new Float64Array(start.heartbeat), (held) =>
  post({ type: 'memory', ...held }),
);

function rpcFor(callId: number): Rpc {
  return (target, method, args, scope) =>
    new Promise((resolve, reject) => {
      const rpcId = ++nextRpc;
      pendingRpc.set(rpcId, { resolve, reject });
      post({ type: 'rpc', rpcId, callId, target, scope, method, args });
    });
}

const HOOK_NAMES: readonly HookName[] = [...HOOKS, ...LIFECYCLE_HOOKS];

async function runCall(loaded: LoadedModule, message: CallMessage): Promise<void> {
  const { callId, hook } = message;
  const controller = new AbortController();
  aborts.set(callId, controller);
  const rpc = rpcFor(callId);
  memory.callStarted();
  try {
    const fn = loaded.definition[hook] as ((args: unknown) => unknown) | undefined;
    const { flags, ...data } = message.args;
    const args = {
      ...data,
      ...(flags ? { flags: flagsFromSnapshot(flags) } : {}),
      logger: loggerProxy(post, callId),
      emit: (event: unknown) => {
        try {
          post({ type: 'event', callId, event });
        } catch {
          // not clonable: not an event either
        }
      },
      state: stateProxy(rpc),
      services: servicesProxy(rpc, start.services, syncCall, start.provided),
      signal: controller.signal,
    };
    const value = fn ? await fn(args) : undefined;
    // Over the limit, no answer: the host ends this worker and fails the call (as for a heap out-of-memory).
    if (!memory.check()) return;
    post({ type: 'result', callId, ok: true, value: isRequestHook(hook) ? value : undefined });
  } catch (error) {
    if (!memory.check()) return;
    post({ type: 'result', callId, ok: false, error: toWireError(error) });
  } finally {
    aborts.delete(callId);
    memory.callEnded();
  }
}

function onMessage(loaded: LoadedModule, message: HostToWorker): void {
  if (message.type === 'call') void runCall(loaded, message);
  else if (message.type === 'abort') aborts.get(message.callId)?.abort(new Error(message.reason));
  else if (message.type === 'rpc-result') {
    const pending = pendingRpc.get(message.rpcId);
    pendingRpc.delete(message.rpcId);
    if (!pending) return;
    if (message.ok) pending.resolve(message.value);
    else
      pending.reject(
        Object.assign(new Error(message.error?.message ?? 'host call failed'), {
          status: message.error?.status,
          code: message.error?.code,
        }),
      );
  }
}

const strayLog = loggerProxy(post, 0, { isolated: true });
process.on('uncaughtException', (error) =>
  strayLog.error(
    { err: String(error?.stack ?? error) },
    'uncaught exception (server keeps running) in an isolated filter',
  ),
);
process.on('unhandledRejection', (reason) =>
  strayLog.error({ err: String(errorStack(reason) ?? reason) }, 'unhandled rejection in an isolated filter'),
);

/** Serve hook calls and tell the host what the file is. */
function announce(loaded: LoadedModule): void {
  const json = (schema: z.ZodType) =>
    z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  port.on('message', (message: HostToWorker) => onMessage(loaded, message));
  post({
    type: 'loaded',
    id: loaded.id,
    name: loaded.name,
    valvesSpec: loaded.valvesSpec,
    valvesJsonSchema: json(loaded.valvesSchema),
    userValvesSpec: loaded.userValvesSpec,
    userValvesJsonSchema: loaded.userValvesSchema ? json(loaded.userValvesSchema) : undefined,
    flags: loaded.kind === 'filter' && loaded.definition.flags ? structuredClone(loaded.definition.flags) : undefined,
    defaultFlagsValve: loaded.definition.defaultFlagsValve,
    hooks: HOOK_NAMES.filter((name) => typeof loaded.definition[name] === 'function'),
    kind: loaded.kind,
  });
}

// The filter's code never gets the calls that end or signal the process (process-guard.ts): named by its file
// while it imports, by its id once it loaded.
let filterName = path.basename(start.file);
guardWorkerProcess(() => filterName);

try {
  const loaded = await loadFilterFile(start.file);
  filterName = loaded.id;
  // A file whose import alone holds more than the limit is not installed: the check reports it and
  // the host fails the import ("import ran out of memory").
  if (memory.check()) announce(loaded);
} catch (error) {
  post({
    type: 'load-failed',
    error: errorMessage(error),
    line: error instanceof FilterLoadError ? error.line : undefined,
    kind: error instanceof FilterLoadError ? error.kind : undefined,
  });
}
