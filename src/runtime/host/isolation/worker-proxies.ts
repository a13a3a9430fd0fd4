/**
 * What an isolated filter gets in place of the host objects it cannot share across threads:
 * `state` and `services` forward each call over the MessagePort, `logger` posts its lines,
 * `flags` is rebuilt from a snapshot. Used inside the worker only.
 */
import type { Logger } from '../../../core/util/logger.js';
import type { ScopedState } from '../../../state/scoped-state.js';
import type { ActiveFlags } from '../../../domain/flags/types.js';
import type { HostServices } from '../types.js';
import type { FlagsSnapshot, LogMessage } from './worker-protocol.js';
import { SYNC_SERVICES } from './sync-calls.js';

/** Send one request to the host and wait for its answer. */
export type Rpc = (target: string, method: string, args: unknown[], scope?: string) => Promise<unknown>;

/** State methods forwarded to the host (the rest throw: they cannot cross a thread). */
export const STATE_METHODS = [
  'get',
  'getMany',
  'set',
  'setMany',
  'delete',
  'keys',
  'compareAndSet',
  'increment',
  'windowAdmit',
  'append',
  'range',
  'publish',
] as const;

/** A lease held on the host for a worker: what crosses the thread (its release is a call by token). */
export interface LeaseHandle {
  name: string;
  token: string;
}

/** Thrown by what isolated filters cannot use (subscribe, sync health). */
export class NotAvailableInWorkerError extends Error {
  constructor(what: string) {
    super(`${what} is not available to isolated filters (FILTER_ISOLATION)`);
  }
}

/** A ScopedState look-alike whose calls run on the host's store under the filter's namespace. */
export function stateProxy(rpc: Rpc, scope = ''): ScopedState {
  const proxy: Record<string, unknown> = {
    backend: 'worker',
    prefix: scope,
    scope: (suffix: string) => stateProxy(rpc, scope + suffix),
    subscribe: () => {
      throw new NotAvailableInWorkerError('state.subscribe');
    },
    // The host holds the lease; the worker gets its name and token, and releases it by them.
    acquireLease: async (name: string, ttlMs: number) => {
      const held = (await rpc('state', 'acquireLease', [name, ttlMs], scope)) as LeaseHandle | undefined;
      return held && { ...held, release: async () => void (await rpc('state', 'releaseLease', [held.token], scope)) };
    },
    health: () => {
      throw new NotAvailableInWorkerError('state.health');
    },
    close: async () => undefined,
  };
  for (const method of STATE_METHODS) proxy[method] = (...args: unknown[]) => rpc('state', method, args, scope);
  return proxy as unknown as ScopedState;
}

/** Calls a host service method synchronously (see sync-calls.ts). */
export type SyncCall = (target: string, method: string, args: unknown[]) => unknown;

/**
 * Host services for a worker: methods of synchronous services (`pricing`) answer at once,
 * the others (`ledger`, `corrections`, already async on the host) return promises.
 */
export function servicesProxy(
  rpc: Rpc,
  names: readonly string[],
  sync: SyncCall,
  providedNames: readonly string[] = [],
): HostServices {
  const services: Record<string, unknown> = {};
  for (const name of names) {
    services[name] = methodsProxy(
      (SYNC_SERVICES as readonly string[]).includes(name)
        ? (method, args) => sync(name, method, args)
        : (method, args) => rpc(name, method, args),
    );
  }
  // What features provide: every method answers with a promise, whatever the host's returns.
  const provided: Record<string, object> = {};
  for (const name of providedNames) {
    provided[name] = methodsProxy((method, args) => rpc(`${PROVIDED_TARGET}${name}`, method, args));
  }
  services.provided = provided;
  return services as HostServices;
}

/** The rpc target prefix of a provided service (`provided:context.stats`). */
export const PROVIDED_TARGET = 'provided:';

/** An object whose every method forwards to `call` (`then` is absent, so it is not mistaken for a promise). */
function methodsProxy(call: (method: string, args: unknown[]) => unknown): object {
  return new Proxy(
    {},
    {
      get: (_target, method) =>
        typeof method === 'string' && method !== 'then' ? (...args: unknown[]) => call(method, args) : undefined,
    },
  );
}

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;

/** A pino-shaped logger whose lines are written by the host's logger (with the request id). */
export function loggerProxy(
  post: (message: LogMessage) => void,
  callId: number,
  bindings: Record<string, unknown> = {},
): Logger {
  const logger: Record<string, unknown> = {
    level: 'trace',
    isLevelEnabled: () => true,
    child: (more: Record<string, unknown>) => loggerProxy(post, callId, { ...bindings, ...more }),
  };
  for (const level of LEVELS) {
    logger[level] = (...args: unknown[]) => {
      // An Error as pino writes one in the main thread: its stack keeps the filter file's frames.
      const clean = args.map((arg) =>
        arg instanceof Error ? { err: { type: arg.name, message: arg.message, stack: arg.stack } } : arg,
      );
      try {
        post({ type: 'log', callId, level, bindings, args: clean });
      } catch {
        post({ type: 'log', callId, level, bindings, args: [String(clean[clean.length - 1])] });
      }
    };
  }
  return logger as unknown as Logger;
}

/** ActiveFlags from its data. */
export function flagsFromSnapshot(snapshot: FlagsSnapshot): ActiveFlags {
  return {
    ...snapshot,
    has: (key) => {
      const value = snapshot.effective[key.toLowerCase()];
      return value !== undefined && value !== false;
    },
    get: (key) => snapshot.effective[key.toLowerCase()],
  };
}

/** The data of an ActiveFlags (host side, before posting). */
export function flagsSnapshot(flags: ActiveFlags): FlagsSnapshot {
  return {
    chatKey: flags.chatKey,
    effective: { ...flags.effective },
    persistent: { ...flags.persistent },
    temporary: { ...flags.temporary },
    marks: structuredClone(flags.marks) as FlagsSnapshot['marks'],
    notices: [...flags.notices],
    source: flags.source,
    ...(flags.defaults ? { defaults: { ...flags.defaults } } : {}),
  };
}
