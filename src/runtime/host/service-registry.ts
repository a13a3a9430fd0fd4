/**
 * Services that features provide, reached by typed keys. The host's own services (pricing, ledger, spend holds,
 * token corrections, pending work) are fields of HostServices; a feature's services are not: the feature declares a
 * key next to its code (`serviceKey<ContextStats>('context.stats')`), provides the service at startup
 * (`registry.provide(key, service)`), and its hooks — or another feature's — read it with `provided(services, key)`.
 * In a worker thread the same read returns a proxy whose calls run on the host (by the key's name).
 */
import type { HostServices } from './types.js';

/** The typed name of a provided service. The type parameter only carries the service's type to `provided`. */
export interface ServiceKey<T extends object> {
  readonly name: string;
  /** Never set: keeps `T` in the key's type. */
  readonly _service?: T;
}

/** A key for a service named `name` (unique across features: prefix it with the feature, `context.stats`). */
export function serviceKey<T extends object>(name: string): ServiceKey<T> {
  return { name };
}

/** The service behind `key`, or undefined when nothing provides it (filters degrade, as with every service). */
export function provided<T extends object>(services: HostServices, key: ServiceKey<T>): T | undefined {
  return services.provided?.[key.name] as T | undefined;
}

/** Thrown when two providers claim one key: a wiring mistake found at startup. */
export class DuplicateServiceError extends Error {
  constructor(name: string) {
    super(`service '${name}' is provided twice`);
    this.name = 'DuplicateServiceError';
  }
}

/** Collects what features provide at startup; `services` is what HostServices.provided carries. */
export class ServiceRegistry {
  readonly services: Record<string, object> = {};

  provide<T extends object>(key: ServiceKey<T>, service: T): T {
    if (Object.hasOwn(this.services, key.name)) throw new DuplicateServiceError(key.name);
    this.services[key.name] = service;
    return service;
  }

  get<T extends object>(key: ServiceKey<T>): T | undefined {
    return this.services[key.name] as T | undefined;
  }
}
