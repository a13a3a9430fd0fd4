import { reportDegraded } from '../../../core/util/store-outage.js';
import { provided } from '../../../runtime/host/service-registry.js';
import type { ContextHookArgs } from '../context-hook-args.js';
import type { CompressedContext } from '../compress/plan-and-compress.js';
import { contextMetricsService, contextStatsService } from '../services.js';

/** How many plan entries got each disposition. */
export type DispositionCounts = { keep: number; pinned: number; summarize: number; drop: number };

export function dispositionCounts(context: CompressedContext): DispositionCounts {
  const counts = { keep: 0, pinned: 0, summarize: 0, drop: 0 };
  for (const entry of context.result.plan.entries) counts[entry.disposition]++;
  return counts;
}

/**
 * The plan's numbers: a Prometheus sample and the per-UTC-day statistics of the dashboard's Context view (numbers
 * only; a store outage never fails the inlet).
 */
export async function recordContextStats(
  context: CompressedContext,
  counts: DispositionCounts,
  args: Pick<ContextHookArgs, 'services' | 'logger'>,
): Promise<void> {
  const { plan } = context.result;
  const { outcome } = context;
  const stats = {
    tokensBefore: plan.tokensBefore,
    tokensAfter: outcome ? outcome.tokensAfter : plan.tokensAfter,
    kept: counts.keep + counts.pinned,
    summarized: outcome?.summarized ?? 0,
    // Planned drops, plus the messages marked for a summary that were dropped instead (all of them without one).
    dropped: counts.drop + (outcome ? outcome.dropped : counts.summarize),
  };
  provided(args.services, contextMetricsService)?.contextPlan(stats);
  await provided(args.services, contextStatsService)
    ?.record({ ...stats, summarizerCalls: outcome?.calls ?? 0, cacheHits: outcome?.cacheHits ?? 0 })
    .catch((error: Error) => reportDegraded(args.logger, 'could not record context statistics', error));
}
