/**
 * Synchronous calls from a worker to the host, for host services whose contract is synchronous
 * (`services.pricing`: the engine prices while it plans). The worker posts a request on its own
 * MessagePort and blocks in `Atomics.wait` (only the worker thread waits); the host answers on
 * its event loop, then wakes it with `Atomics.notify`.
 */
import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import type { HostServices } from '../types.js';
import { toWireError, type WireError } from './worker-protocol.js';

/** Host services reached synchronously from workers; the others answer with promises. */
export const SYNC_SERVICES = ['pricing'] as const;

interface SyncRequest {
  target: string;
  method: string;
  args: unknown[];
}
interface SyncReply {
  ok: boolean;
  value?: unknown;
  error?: WireError;
}

/** A synchronous host call failed, was refused, or got no answer in time. */
export class SyncCallError extends Error {}

/** Host side: answer `port`'s requests with `services` (sync methods of SYNC_SERVICES only). */
export function serveSyncCalls(port: MessagePort, flag: Int32Array, services: HostServices): void {
  port.on('message', (request: SyncRequest) => {
    let reply: SyncReply;
    try {
      if (!(SYNC_SERVICES as readonly string[]).includes(request.target))
        throw new SyncCallError(`services.${request.target} is not synchronous`);
      const service = (services as Record<string, Record<string, unknown> | undefined>)[request.target];
      const fn = service?.[request.method];
      if (!service || typeof fn !== 'function' || request.method === 'constructor' || request.method.startsWith('_')) {
        throw new SyncCallError(`services.${request.target}.${request.method} is not available`);
      }
      reply = { ok: true, value: (fn as (...values: unknown[]) => unknown).apply(service, request.args) };
    } catch (error) {
      reply = { ok: false, error: toWireError(error) };
    }
    try {
      port.postMessage(reply);
    } catch (error) {
      port.postMessage({ ok: false, error: toWireError(error) } satisfies SyncReply);
    }
    Atomics.store(flag, 0, 1);
    Atomics.notify(flag, 0);
  });
  port.unref();
}

/** Worker side: a function that calls `target.method(...args)` on the host and returns its answer. */
export function syncCaller(port: MessagePort, flag: Int32Array, timeoutMs = 5000) {
  return (target: string, method: string, args: unknown[]): unknown => {
    Atomics.store(flag, 0, 0);
    port.postMessage({ target, method, args } satisfies SyncRequest);
    if (Atomics.wait(flag, 0, 0, timeoutMs) === 'timed-out')
      throw new SyncCallError(`services.${target}.${method} got no answer from the host within ${timeoutMs} ms`);
    const received = receiveMessageOnPort(port);
    const reply = received?.message as SyncReply | undefined;
    if (!reply) throw new SyncCallError(`services.${target}.${method}: no answer`);
    if (!reply.ok) throw new SyncCallError(reply.error?.message ?? 'host call failed');
    return reply.value;
  };
}
