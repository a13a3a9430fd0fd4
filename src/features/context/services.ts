/**
 * The context feature's services: its per-day statistics (the filter records each inlet, the dashboard reads the
 * days) and the Prometheus samples of its plans. Provided once at startup by `provideContextServices`.
 */
import { serviceKey, type ServiceRegistry } from '../../runtime/host/service-registry.js';
import { createContextStats, type ContextStats } from '../../runtime/usage/context-stats.js';
import type { ContextMetrics } from '../../runtime/metrics/metrics.js';
import type { StateStore } from '../../state/types.js';

export const contextStatsService = serviceKey<ContextStats>('context.stats');
export const contextMetricsService = serviceKey<ContextMetrics>('context.metrics');

export function provideContextServices(
  registry: ServiceRegistry,
  deps: { store: StateStore; metrics?: ContextMetrics },
): { stats: ContextStats } {
  const stats = registry.provide(contextStatsService, createContextStats(deps.store));
  if (deps.metrics) registry.provide(contextMetricsService, deps.metrics);
  return { stats };
}
