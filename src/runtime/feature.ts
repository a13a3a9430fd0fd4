/**
 * A feature: what ships on top of the host (the context filter, accounting, spend limits, the proxy, the dashboard,
 * the Open WebUI integration), one folder under src/features/ exposing one `Feature` object. The composition root
 * (src/compose.ts) goes through its list of features in order; it knows no feature's parts. In the spirit of
 * Fastify's `register`: a feature gets the host and adds to it, and nothing else reaches into it.
 *
 * At start-up, in this order:
 * 1. `services(host)`, for every feature: provide what its filters (or another feature's) read with
 *    `provided(services, key)`. The keys a filter may read live below the features
 *    (src/runtime/host/shipped-service-keys.ts), so a feature never imports another to reach its service.
 * 2. The filters load (they get the services).
 * 3. When the app is built (src/app.ts, the one place routes are mounted), for every feature: `publicRoutes(router)`,
 *    routes without the API key, before every other route (a page that asks for the key itself); then, after the
 *    host's own routes (the valves routes come last), `routes(router, host)`: authenticated routes, mounted at `/`
 *    and `/v1`, behind the API key and the JSON body limits.
 * 4. `start()`, for every feature, once the app is built.
 *
 * At shutdown, in reverse order, after the filters stopped and work left running settled, before the store closes:
 * `close()` (write what is buffered).
 *
 * A feature keeps its state in its own closure (its factory's): two runtimes in one process never share it.
 */
import type { Router } from 'express';
import type { Logger } from '../core/util/logger.js';
import type { Ledger } from '../domain/usage/types.js';
import type { StateStore } from '../state/types.js';
import type { ModuleRegistry } from './host/module-registry.js';
import type { ServiceRegistry } from './host/service-registry.js';
import type { Metrics } from './metrics/metrics.js';
import type { FilterChainDeps } from './pipes/filter-chain.js';
import type { PricingService } from './pricing/pricing-service.js';

/** What the host gives a feature's `services`. */
export interface FeatureHost {
  store: StateStore;
  logger: Logger;
  /** Prometheus metrics: a feature registers its own series on `metrics.registry`. */
  metrics?: Metrics;
  /** Where a feature provides its services (`provide(key, service)`) and reads another's (`get(key)`). */
  provided: ServiceRegistry;
  /** The loaded filters and their valves at the time of the call (none before the filters load). */
  filters?: () => ReadonlyArray<{ id: string; valves: Record<string, unknown> }>;
}

/** What the host gives a feature's `routes`: the host's parts the HTTP API reads. */
export interface RouteHost {
  store: StateStore;
  /** The ledger (reads: ranges, daily aggregates); absent in an app built without the host's services. */
  ledger?: Ledger;
  /** The loaded filters and pipes, and those that failed to load. */
  registry: Pick<ModuleRegistry, 'list' | 'failures'>;
  pricing?: Pick<PricingService, 'status'>;
  /** What the features provided (`get(key)`): a feature's routes read another's services by key, never by import. */
  provided: Pick<ServiceRegistry, 'get'>;
  /**
   * What running the loaded filters' hooks as one chain needs (the registry, the valves, the host's services, the
   * flags, the hook deadline, the metrics): `runFunctionChain(host.chain, …)`, which calls every hook through
   * `callHook`. A route never runs a hook itself.
   */
  chain: FilterChainDeps;
}

/** One feature's parts; every member but `name` is optional. */
export interface Feature {
  /** The feature's folder name under src/features/ (`context`, `accounting`…), for logs. */
  readonly name: string;
  /** Provide the feature's services, before the filters load. */
  services?(host: FeatureHost): void;
  /** Add the feature's public routes to `router` (mounted at `/` before the API key check: static pages only). */
  publicRoutes?(router: Router): void;
  /** Add the feature's authenticated routes to `router` (mounted at `/` and `/v1`). */
  routes?(router: Router, host: RouteHost): void;
  /**
   * Which of those routes the read-only DASHBOARD_API_KEY may GET (a path as the router sees it, or a pattern):
   * the reads the dashboard's page makes. The full API key may call every route.
   */
  readonly dashboardReads?: readonly (string | RegExp)[];
  /** Once the app is built (the filters loaded, the routes mounted). */
  start?(): Promise<void> | void;
  /** At shutdown, after the filters stopped, before the store closes. */
  close?(): Promise<void> | void;
}
