/**
 * The keys of the services the shipped features provide, declared apart from the features: a filter reads one with
 * `provided(services, contextStatsService)` through `eunoe` without loading the feature behind it. The features
 * provide them at startup (src/features/context/services.ts, src/features/accounting/services.ts).
 */
import { serviceKey } from './service-registry.js';
import type { ContextStats } from '../usage/context-stats.js';
import type { ContextMetrics } from '../metrics/metrics.js';
import type { ReplyClaims } from '../usage/reply-claims.js';

/** The context filter's per-day statistics (the filter records each inlet, the dashboard reads the days). */
export const contextStatsService = serviceKey<ContextStats>('context.stats');
/** The Prometheus samples of the context filter's plans. */
export const contextMetricsService = serviceKey<ContextMetrics>('context.metrics');
/** Reply claims: pair the `openai-proxy`'s and the accounting outlet's records of one proxied reply. */
export const replyClaimsService = serviceKey<ReplyClaims>('accounting.reply-claims');
