/**
 * The context feature's services: its per-day statistics (the filter records each inlet, the dashboard reads the
 * days) and the Prometheus samples of its plans. Provided once at startup by `provideContextServices`.
 */
import { serviceKey, type ServiceRegistry } from '../../runtime/host/service-registry.js';
import { createContextStats } from './stats/context-stats.js';
import { createContextMetrics, type ContextMetrics } from './stats/context-metrics.js';
import type { Metrics } from '../../runtime/metrics/metrics.js';
import type { Logger } from '../../core/util/logger.js';
import type { StateStore } from '../../state/types.js';
import { contextStatsService, type ContextStats } from '../../runtime/host/shipped-service-keys.js';
import { createRunStore, type RunStore } from './runs/run-store.js';

export { contextStatsService };

/** The Prometheus samples of the context filter's plans (only the feature's own code reads them). */
export const contextMetricsService = serviceKey<ContextMetrics>('context.metrics');
/** The run inspector's records: the filter records each inlet's plan, the `/runs` routes read them. */
export const contextRunsService = serviceKey<RunStore>('context.runs');

/** The context feature's services, as its feature object keeps them (to mount the runs routes, to flush at close). */
export interface ContextServices {
  stats: ContextStats;
  runs: RunStore;
}

export function provideContextServices(
  registry: ServiceRegistry,
  deps: { store: StateStore; metrics?: Metrics; logger?: Logger },
): ContextServices {
  const stats = registry.provide(contextStatsService, createContextStats(deps.store));
  const runs = registry.provide(contextRunsService, createRunStore(deps.store, { logger: deps.logger }));
  if (deps.metrics) registry.provide(contextMetricsService, createContextMetrics(deps.metrics.registry));
  return { stats, runs };
}
