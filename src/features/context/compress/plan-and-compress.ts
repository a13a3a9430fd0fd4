import { planContext, type PlanInput, type PlanResult, type Summarizer } from '../../../domain/engine/index.js';
import { compressPlan, type CompressOutcome } from './compress-plan.js';
import type { CompressSettings } from './compress-settings.js';
import type { SummaryCache } from './summary-cache.js';

/** The summarizing half of a context run (absent = drop, as without a summarizer). */
export interface Compression {
  summarizer: Summarizer;
  cache: SummaryCache;
  settings: CompressSettings;
}

/** A plan, what compression made of it, and the messages to send. */
export interface CompressedContext {
  result: PlanResult;
  outcome?: CompressOutcome;
  messages: unknown[];
  /** Source messages re-planned as pinned by `keep_source` receipts. */
  keptSources: string[];
}

/** The plan input with `ids` pinned (for `keep_source`). */
function withPinned(input: PlanInput, ids: readonly string[]): PlanInput {
  const marks = { ...(input.marks ?? {}) };
  for (const id of ids) marks[id] = { ...marks[id], pinned: true };
  return { ...input, marks };
}

/** The compression notes added to the plan's notes, so the plan tells the whole story. */
function withNotes(context: CompressedContext): CompressedContext {
  context.result.plan.notes.push(...(context.outcome?.notes ?? []));
  return context;
}

/** No summary at all: the plan without summaries (exactly the dropping behaviour, the reserve given back to messages). */
function dropInstead(input: PlanInput, outcome: CompressOutcome): CompressedContext {
  const result = planContext({ ...input, options: { ...input.options, summarize: false } });
  outcome.notes.push('no summary block: planned without summaries (older messages dropped)');
  Object.assign(outcome, { messages: result.messages, tokensAfter: result.plan.tokensAfter, summarized: 0 });
  return { result, outcome, messages: result.messages, keptSources: [] };
}

/**
 * Plans the context and, when a summarizer is configured and the plan marks messages
 * `summarize`, compresses them into one summary block; when no summary can be had, plans as
 * if there were no summarizer. With `keep_source` receipts, the
 * messages whose facts a summary lost are pinned and the context re-planned once (if that
 * still fits the budget; otherwise the facts are only reported).
 */
export async function planAndCompress(
  input: PlanInput,
  compression: Compression | undefined,
  extra: { correction?: number; signal?: AbortSignal } = {},
): Promise<CompressedContext> {
  const result = planContext(input);
  if (!compression || result.plan.summaryRanges.length === 0)
    return { result, messages: result.messages, keptSources: [] };
  const outcome = await compressPlan({ result, messages: input.messages, ...compression, ...extra });
  if (!outcome.block) return withNotes(dropInstead(input, outcome));
  if (outcome.keepSource.length === 0)
    return withNotes({ result, outcome, messages: outcome.messages, keptSources: [] });
  const again = planContext(withPinned(input, outcome.keepSource));
  if (again.plan.overBudget) {
    outcome.notes.push(
      `keep_source: pinning ${outcome.keepSource.length} source message(s) would exceed the budget; missing facts reported only`,
    );
    return withNotes({ result, outcome, messages: outcome.messages, keptSources: [] });
  }
  const settings = { ...compression.settings, factReceipt: 'report' as const };
  const second = await compressPlan({ result: again, messages: input.messages, ...compression, settings, ...extra });
  second.notes.unshift(
    `keep_source: ${outcome.keepSource.length} source message(s) kept because their summary lost facts`,
  );
  second.calls += outcome.calls;
  if (!second.block) return withNotes(dropInstead(withPinned(input, outcome.keepSource), second));
  return withNotes({ result: again, outcome: second, messages: second.messages, keptSources: outcome.keepSource });
}
