import type { ScopedState } from '../../../state/scoped-state.js';
import type { FilterEvent, HostServices } from '../types.js';
import type { Logger } from '../../../core/util/logger.js';
import type { Lease } from '../../../state/types.js';
import { type LeaseHandle, PROVIDED_TARGET, STATE_METHODS } from './worker-proxies.js';
import type { LogMessage, RpcMessage } from './worker-protocol.js';

/** The host objects a worker's calls act on: those of the hook call they belong to. */
export interface CallContext {
  logger: Logger;
  state: ScopedState;
  services: HostServices;
  /** The hook call's event sink (inlet and outlet calls only). */
  emit?: (event: FilterEvent) => void;
}

/**
 * Leases workers hold, by namespace and token: a worker gets a lease's name and token (the lease itself cannot cross
 * the thread) and releases it by them. An entry is dropped when released or when its time to live is up (the store
 * lets the lease go then anyway).
 */
const heldLeases = new Map<string, Lease>();

async function leaseRpc(state: ScopedState, method: string, args: unknown[]): Promise<LeaseHandle | undefined> {
  if (method === 'acquireLease') {
    const [name, ttlMs] = args as [string, number];
    const lease = await state.acquireLease(name, ttlMs);
    if (!lease) return undefined;
    const key = `${state.prefix}\0${lease.token}`;
    heldLeases.set(key, lease);
    setTimeout(() => heldLeases.delete(key), ttlMs).unref();
    return { name: lease.name, token: lease.token };
  }
  const key = `${state.prefix}\0${String(args[0])}`;
  const lease = heldLeases.get(key);
  heldLeases.delete(key);
  await lease?.release();
  return undefined;
}

/** A worker asked for something isolated filters may not do. */
export class RpcRejectedError extends Error {}

/**
 * Run a worker's request on the host: a state method from STATE_METHODS (or a lease's acquire and release) on the
 * filter's own namespace (optionally a nested scope), or a method of a host service. Nothing else.
 */
export async function runHostRpc(context: CallContext, message: RpcMessage): Promise<unknown> {
  const { target, method, args } = message;
  if (target === 'state') {
    const lease = method === 'acquireLease' || method === 'releaseLease';
    if (!lease && !(STATE_METHODS as readonly string[]).includes(method))
      throw new RpcRejectedError(`state.${method} is not available to isolated filters`);
    const state = message.scope ? context.state.scope(message.scope) : context.state;
    if (lease) return leaseRpc(state, method, args);
    return (state[method as (typeof STATE_METHODS)[number]] as (...values: unknown[]) => unknown)(...args);
  }
  const service = (
    target.startsWith(PROVIDED_TARGET)
      ? context.services.provided?.[target.slice(PROVIDED_TARGET.length)]
      : target === 'provided'
        ? undefined
        : (context.services as Record<string, unknown>)[target]
  ) as Record<string, unknown> | undefined;
  const fn = service?.[method];
  if (!service || typeof fn !== 'function' || method === 'constructor' || method.startsWith('_')) {
    throw new RpcRejectedError(`services.${target}.${method} is not available`);
  }
  return (fn as (...values: unknown[]) => unknown).apply(service, args);
}

/** Write a worker's log line with the host logger of its call. */
export function writeWorkerLog(logger: Logger, message: LogMessage): void {
  const target = Object.keys(message.bindings).length ? logger.child(message.bindings) : logger;
  const [first, ...rest] = message.args;
  const write = target[message.level].bind(target) as (...values: unknown[]) => void;
  write(first, ...rest);
}
