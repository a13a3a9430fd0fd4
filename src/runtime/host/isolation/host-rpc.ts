import type { ScopedState } from '../../../state/scoped-state.js';
import type { FilterEvent, HostServices } from '../types.js';
import type { Logger } from '../../../core/util/logger.js';
import { PROVIDED_TARGET, STATE_METHODS } from './worker-proxies.js';
import type { LogMessage, RpcMessage } from './worker-protocol.js';

/** The host objects a worker's calls act on: those of the hook call they belong to. */
export interface CallContext {
  logger: Logger;
  state: ScopedState;
  services: HostServices;
  /** The hook call's event sink (inlet and outlet calls only). */
  emit?: (event: FilterEvent) => void;
}

/** A worker asked for something isolated filters may not do. */
export class RpcRejectedError extends Error {}

/**
 * Run a worker's request on the host: a state method from STATE_METHODS on the filter's own
 * namespace (optionally a nested scope), or a method of a host service. Nothing else.
 */
export async function runHostRpc(context: CallContext, message: RpcMessage): Promise<unknown> {
  const { target, method, args } = message;
  if (target === 'state') {
    if (!(STATE_METHODS as readonly string[]).includes(method))
      throw new RpcRejectedError(`state.${method} is not available to isolated filters`);
    const state = message.scope ? context.state.scope(message.scope) : context.state;
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
