/**
 * The context feature's services: its per-day statistics (the filter records each inlet, the dashboard reads the
 * days) and the Prometheus samples of its plans. Provided once at startup by `provideContextServices`.
 */
import { serviceKey, type ServiceRegistry } from '../../runtime/host/service-registry.js';
import { createContextStats, type ContextStats } from '../../runtime/usage/context-stats.js';
import type { ContextMetrics } from '../../runtime/metrics/metrics.js';
import type { Logger } from '../../core/util/logger.js';
import type { StateStore } from '../../state/types.js';
import { contextMetricsService, contextStatsService } from '../../runtime/host/shipped-service-keys.js';
import { createRunStore, type RunStore } from './runs/run-store.js';

export { contextStatsService, contextMetricsService };
/** The run inspector's records: the filter records each inlet's plan, the `/runs` routes read them. */
export const contextRunsService = serviceKey<RunStore>('context.runs');

/** The context feature's services, as its feature object keeps them (to mount the runs routes, to flush at close). */
export interface ContextServices {
  stats: ContextStats;
  runs: RunStore;
}

export function provideContextServices(
  registry: ServiceRegistry,
  deps: { store: StateStore; metrics?: ContextMetrics; logger?: Logger },
): ContextServices {
  const stats = registry.provide(contextStatsService, createContextStats(deps.store));
  const runs = registry.provide(contextRunsService, createRunStore(deps.store, { logger: deps.logger }));
  if (deps.metrics) registry.provide(contextMetricsService, deps.metrics);
  return { stats, runs };
}
