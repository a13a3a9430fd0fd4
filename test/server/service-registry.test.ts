import { describe, expect, it } from 'vitest';
import {
  DuplicateServiceError,
  provided,
  ServiceRegistry,
  serviceKey,
} from '../../src/runtime/host/service-registry.js';
import { runHostRpc } from '../../src/runtime/host/isolation/host-rpc.js';
import { servicesProxy } from '../../src/runtime/host/isolation/worker-proxies.js';
import type { HostServices } from '../../src/runtime/host/types.js';
import { silentLogger } from '../../src/core/util/logger.js';

interface Counter {
  add(by: number): number;
}

function counter(): Counter {
  let total = 0;
  return { add: (by) => (total += by) };
}

describe('service registry', () => {
  it('gives a provided service back by its key, and nothing for a key nobody provides', () => {
    const registry = new ServiceRegistry();
    const key = serviceKey<Counter>('test.counter');
    const service = registry.provide(key, counter());
    const services: HostServices = { provided: registry.services };
    expect(provided(services, key)).toBe(service);
    expect(registry.get(key)).toBe(service);
    expect(provided(services, serviceKey<Counter>('test.other'))).toBeUndefined();
    expect(provided({}, key)).toBeUndefined();
  });

  it('refuses a second provider for one key', () => {
    const registry = new ServiceRegistry();
    registry.provide(serviceKey<Counter>('test.counter'), counter());
    expect(() => registry.provide(serviceKey<Counter>('test.counter'), counter())).toThrow(DuplicateServiceError);
  });

  it('reaches a provided service from a worker by its name; host fields and unknown names stay apart', async () => {
    const registry = new ServiceRegistry();
    const key = serviceKey<Counter>('test.counter');
    registry.provide(key, counter());
    const host: HostServices = { provided: registry.services };
    const context = {
      services: host,
      state: undefined as never,
      logger: silentLogger(),
    } as unknown as Parameters<typeof runHostRpc>[0];
    // The worker side: every call becomes an rpc message the host answers with runHostRpc.
    const rpc = (target: string, method: string, args: unknown[]) =>
      runHostRpc(context, { type: 'rpc', rpcId: 1, callId: 1, target, method, args });
    const inWorker = servicesProxy(rpc, [], () => undefined, Object.keys(registry.services));
    const remote = provided(inWorker, key) as unknown as { add(by: number): Promise<number> };
    expect(await remote.add(2)).toBe(2);
    expect(await remote.add(3)).toBe(5);
    await expect(rpc('provided', 'add', [1])).rejects.toThrow(/not available/);
    await expect(rpc('provided:test.unknown', 'add', [1])).rejects.toThrow(/not available/);
  });
});
