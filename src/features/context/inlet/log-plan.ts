import type { ContextHookArgs } from '../context-hook-args.js';
import type { CompressedContext } from '../compress/plan-and-compress.js';
import type { DispositionCounts } from './record-stats.js';
import type { ScoringReport } from './score-with-models.js';

/** The plan's log lines: every entry at `debug`, one summary line at `info` (both carry the run id). */
export function logPlan(
  context: CompressedContext,
  facts: { model: string | undefined; counts: DispositionCounts; scoring: ScoringReport | undefined },
  args: Pick<ContextHookArgs, 'flags' | 'logger'>,
): void {
  const { flags, logger } = args;
  const { model, counts, scoring } = facts;
  const { plan } = context.result;
  const { outcome } = context;
  const receipts = outcome?.receipts.map((receipt) => ({
    messages: receipt.ids.length,
    checked: receipt.checked,
    missing: receipt.missing.length,
    action: receipt.action,
  }));
  logger.debug(
    {
      runId: plan.runId,
      entries: plan.entries,
      notes: plan.notes,
      budget: plan.budget,
      facts: outcome?.receipts.map((receipt) => receipt.missing),
    },
    'context plan',
  );
  logger.info(
    {
      runId: plan.runId,
      model,
      algorithm: plan.algorithm,
      before: plan.tokensBefore,
      after: outcome ? outcome.tokensAfter : plan.tokensAfter,
      limit: plan.budget.limitTokens,
      overBudget: plan.overBudget,
      ...(plan.capped ? { capped: plan.capped } : {}),
      ...(plan.compactionSummary ? { openWebUISummaryTokens: plan.compactionSummary.tokens } : {}),
      ...counts,
      flags: flags.effective,
      source: flags.source,
      ...(outcome
        ? {
            summary: {
              level: outcome.level,
              summarized: outcome.summarized,
              dropped: outcome.dropped,
              calls: outcome.calls,
              cacheHits: outcome.cacheHits,
              tokens: outcome.blockTokens,
              truncated: outcome.truncated,
              keptSources: context.keptSources.length,
            },
            receipts,
            notes: plan.notes,
          }
        : {}),
      ...(scoring ? { scoring } : {}),
    },
    'context planned',
  );
}
