/**
 * Messages between the host (main thread) and a filter worker. Everything here must be
 * structured-clonable: no functions, no class instances the other side relies on.
 */
import type { MessagePort } from 'node:worker_threads';
import type { FlagSpec, FlagValue, MessageMarks } from '../../../domain/flags/types.js';
import type { Hook, LifecycleHook } from '../../../core/messages/hooks.js';

/** What the worker is started with (`workerData`). */
export interface WorkerStart {
  file: string;
  /** Host services present in the main thread (`pricing`, `ledger`, `corrections`). */
  services: string[];
  /** Names of the services features provide (HostServices.provided), reached as rpc targets `provided:<name>`. */
  provided: string[];
  /** Port and wake-up flag (Int32Array over a SharedArrayBuffer) of synchronous service calls. */
  syncPort: MessagePort;
  syncFlag: SharedArrayBuffer;
  /** What the worker may hold (V8 heap + memory outside it), in MB: FILTER_WORKER_MAX_MB. */
  maxMemoryMb: number;
  /** The worker's memory samples, read by the host when its event loop is blocked (memory-guard.ts). */
  heartbeat: SharedArrayBuffer;
}

/** The worker imported and validated the file. */
export interface LoadedMessage {
  type: 'loaded';
  id: string;
  name: string;
  valvesSpec: Record<string, unknown>;
  valvesJsonSchema: Record<string, unknown>;
  userValvesSpec?: Record<string, unknown>;
  userValvesJsonSchema?: Record<string, unknown>;
  flags?: FlagSpec[];
  /** The user valve holding the user's default flags (`FilterDefinition.defaultFlagsValve`). */
  defaultFlagsValve?: string;
  hooks: HookName[];
  /** `pipe` when the file is a pipe (the host then loads it in the main thread). */
  kind?: 'filter' | 'pipe';
}

export interface LoadFailedMessage {
  type: 'load-failed';
  error: string;
  line?: number;
  /** The kind the file's default export declares, when it was read. */
  kind?: 'filter' | 'pipe' | 'manifold';
}

export type HookName = Hook | LifecycleHook;

/** The data of an ActiveFlags (its `has`/`get` are rebuilt in the worker). */
export interface FlagsSnapshot {
  chatKey: string;
  effective: Record<string, FlagValue>;
  persistent: Record<string, FlagValue>;
  temporary: Record<string, FlagValue>;
  marks: Record<string, MessageMarks>;
  notices: string[];
  source: 'store' | 'replay' | 'none';
  defaults?: Record<string, FlagValue>;
}

/** Host → worker: run one hook. `args` holds only clonable data (no logger, state, services, signal). */
export interface CallMessage {
  type: 'call';
  callId: number;
  hook: HookName;
  args: Record<string, unknown> & { flags?: FlagsSnapshot };
}

/** Host → worker: the caller went away; abort that call's signal. */
export interface AbortMessage {
  type: 'abort';
  callId: number;
  reason: string;
}

/**
 * An error that crossed the boundary. `status`/`code` are set for FilterError and other EunoeErrors;
 * `stack` is the thrower's own (the filter file's frames), for the host's logs only.
 */
export interface WireError {
  message: string;
  status?: number;
  code?: string;
  stack?: string;
}

/** Worker → host: a hook finished. */
export interface ResultMessage {
  type: 'result';
  callId: number;
  ok: boolean;
  value?: unknown;
  error?: WireError;
}

/**
 * Worker → host: call `state.scope(scope)[method](...args)`, `services[target][method](...args)`, or for a target
 * `provided:<name>` the provided service's method.
 */
export interface RpcMessage {
  type: 'rpc';
  rpcId: number;
  /** The hook call this belongs to (0 = none: a timer after the hook returned). */
  callId: number;
  target: 'state' | string;
  scope?: string;
  method: string;
  args: unknown[];
}

/** Host → worker: the answer to an RpcMessage. */
export interface RpcResultMessage {
  type: 'rpc-result';
  rpcId: number;
  ok: boolean;
  value?: unknown;
  error?: WireError;
}

/** Worker → host: one log line of the filter's logger. */
export interface LogMessage {
  type: 'log';
  callId: number;
  level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
  bindings: Record<string, unknown>;
  args: unknown[];
}

/**
 * Worker → host: the worker holds more than its limit (V8 heap + Buffers, ArrayBuffers and other
 * memory outside the heap, after a full collection). The host ends it as for a heap out-of-memory.
 */
export interface MemoryMessage {
  type: 'memory';
  heapBytes: number;
  externalBytes: number;
}

/** Worker → host: one event a hook emitted (`args.emit`), added to its call's events. */
export interface EventMessage {
  type: 'event';
  callId: number;
  event: unknown;
}

export type HostToWorker = CallMessage | AbortMessage | RpcResultMessage;
export type WorkerToHost =
  | LoadedMessage
  | LoadFailedMessage
  | ResultMessage
  | RpcMessage
  | LogMessage
  | EventMessage
  | MemoryMessage;

/** Turn anything thrown into a WireError. */
export function toWireError(error: unknown): WireError {
  if (error && typeof error === 'object') {
    const { message, status, code, stack } = error as {
      message?: unknown;
      status?: unknown;
      code?: unknown;
      stack?: unknown;
    };
    return {
      message: typeof message === 'string' ? message : String(error),
      status: typeof status === 'number' ? status : undefined,
      code: typeof code === 'string' ? code : undefined,
      stack: typeof stack === 'string' ? stack : undefined,
    };
  }
  return { message: String(error) };
}
