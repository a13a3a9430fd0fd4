import type { ResolvedBudget } from '../budget/resolve-budget.js';
import type { Conversation } from '../conversation/chat-node.js';
import { summaryRanges } from '../summarize/summary-ranges.js';
import { SUMMARY_OVERHEAD_TOKENS } from '../summarize/summary-reserve.js';
import type { EngineOptions, PlanCapped, PlanEntry, PlanInput, PlanResult } from '../types.js';
import type { SelectionTotals } from './repair-selection.js';
import { runId } from './run-id.js';
import { sendOrder } from './send-order.js';
import { alternateRoles } from '../constraints/alternate-roles.js';
import { countMessageTokens } from '../tokens/count-message-tokens.js';
import type { EncodingName } from '../tokens/encoding-for-model.js';
import { loadEncoder } from '../tokens/load-encoder.js';

/** Inputs of the final assembly step. */
export interface AssembleInputs {
  input: PlanInput;
  options: EngineOptions;
  conversation: Conversation;
  entries: PlanEntry[];
  tokens: ArrayLike<number>;
  tokensBefore: number;
  totals: SelectionTotals;
  /** System tokens + reply priming. */
  fixed: number;
  budget: ResolvedBudget;
  notes: string[];
  encoding: string;
  cacheHits: number;
  prefixReused: number;
  /** Input indexes sent after the kept history, before the current turn (prefix_cache recall). */
  recalled?: ReadonlySet<number>;
  /** Input indexes sent first, in this order, after the system prompts: the part expected to repeat (`Selection.leading`). */
  leading?: readonly number[];
  /** What `capForced` held back. */
  capped?: PlanCapped;
}

/** Tokens of the leading part of `sequence` that equals `previous` (likely prompt-cache hits). */
function cachedPrefixTokens(
  sequence: readonly string[],
  sequenceTokens: readonly number[],
  previous: readonly string[] | undefined,
): number {
  let total = 0;
  for (let index = 0; index < sequence.length && index < (previous?.length ?? 0); index += 1) {
    if (sequence[index] !== previous![index]) break;
    total += sequenceTokens[index]!;
  }
  return total;
}

/** Tokens a merge saves (≤ 0): each merged message recounted, minus what its parts cost apart. */
function mergedTokenDelta(
  alternated: ReturnType<typeof alternateRoles>,
  tokens: readonly number[],
  encoding: EncodingName,
  correction: number | undefined,
): number {
  const factor = typeof correction === 'number' && Number.isFinite(correction) && correction > 0 ? correction : 1;
  let delta = 0;
  alternated.sources.forEach((positions, index) => {
    if (positions.length < 2) return;
    const raw = countMessageTokens(alternated.messages[index], loadEncoder(encoding));
    delta +=
      (factor === 1 ? raw : Math.ceil(raw * factor)) - positions.reduce((sum, position) => sum + tokens[position]!, 0);
  });
  return delta;
}

/** Entries of the messages merged into the one before them (`sources`: positions in `order`, as sent). */
function markMerged(sources: readonly number[][], order: readonly number[], entries: PlanEntry[]): void {
  for (const positions of sources) {
    const into = order[positions[0]!]!;
    for (const position of positions.slice(1)) {
      const entry = entries[order[position]!]!;
      entry.mergedInto = into;
      entry.cause = 'role-alternation';
      entry.reason = `merged into message ${into} so user and assistant alternate`;
    }
  }
}

/**
 * Builds the messages to send (input objects, untouched, except merges for strict role
 * alternation; recalled ones after the kept history), the sequence and the plan.
 */
export function assembleResult(inputs: AssembleInputs): PlanResult {
  const { input, options, conversation, entries, budget, totals, notes } = inputs;
  const messages: unknown[] = [];
  const sequence: string[] = [];
  const sequenceTokens: number[] = [];
  let summaryInsertAt = -1;
  const { order, leading } = sendOrder(
    entries,
    inputs.recalled ?? new Set(),
    conversation.lastUserIndex,
    (index) => conversation.nodes[index]!.isSystem,
    inputs.leading,
  );
  for (const index of order) {
    const entry = entries[index]!;
    const node = conversation.nodes[index]!;
    if (summaryInsertAt < 0 && !node.isSystem) summaryInsertAt = messages.length;
    messages.push(node.message);
    sequence.push(entry.id);
    sequenceTokens.push(entry.tokens);
  }
  if (summaryInsertAt < 0) summaryInsertAt = messages.length;
  const recalled = inputs.recalled ?? new Set<number>();
  // The part of the prompt expected to repeat next time: system prompts and the leading messages when they were
  // placed first, otherwise the history up to the first recalled message or the current turn (both sent after it).
  let stable = 0;
  while (stable < order.length && conversation.nodes[order[stable]!]!.isSystem) stable += 1;
  if (leading > 0) stable += leading;
  else
    while (
      stable < order.length &&
      (conversation.nodes[order[stable]!]!.isSystem ||
        (!recalled.has(order[stable]!) &&
          (conversation.lastUserIndex < 0 || order[stable]! < conversation.lastUserIndex)))
    )
      stable += 1;
  let stablePrefix = stable;
  let sent = messages;
  let mergeDelta = 0;
  if (options.roleAlternation === 'strict') {
    const alternated = alternateRoles(messages);
    if (alternated.merged > 0) {
      markMerged(alternated.sources, order, entries);
      notes.push(`${alternated.merged} message(s) merged into the one before, so user and assistant alternate`);
      mergeDelta = mergedTokenDelta(
        alternated,
        order.map((index) => inputs.tokens[index]!),
        inputs.encoding as EncodingName,
        input.correction,
      );
    }
    sent = alternated.messages;
    // A merged message is stable only when all its parts are.
    stablePrefix = 0;
    while (
      stablePrefix < alternated.sources.length &&
      alternated.sources[stablePrefix]!.every((position) => position < stable)
    )
      stablePrefix += 1;
  }
  const tokensAfter = inputs.fixed + totals.chat + totals.reserve + mergeDelta;
  const overBudget = tokensAfter > budget.hard;
  if (overBudget)
    notes.push(`over budget: what must be kept (${tokensAfter} tokens) exceeds the limit of ${budget.hard} tokens`);
  const cached = cachedPrefixTokens(sequence, sequenceTokens, input.previousSequence);
  const estimatedCostUsd =
    input.pricing && input.model
      ? input.pricing.estimateCost(input.model, {
          promptTokens: tokensAfter,
          completionTokens: options.expectedCompletionTokens,
          cachedTokens: cached,
        })
      : undefined;
  const finite = (value: number) => (Number.isFinite(value) ? value : 0);
  let id: string | undefined;
  return {
    messages: sent,
    sequence,
    stablePrefix,
    plan: {
      // Hashed when first read (a log line reads it; a caller that plans without logging never pays for it).
      get runId() {
        id ??=
          input.runId ??
          runId(
            conversation.nodes.map((node) => node.id),
            input.model,
            options,
          );
        return id;
      },
      entries,
      tokensBefore: inputs.tokensBefore,
      tokensAfter,
      budget: {
        limitTokens: finite(budget.hard),
        targetTokens: finite(budget.aim),
        maxTokens: options.maxTokens,
        costLimitTokens: budget.costLimitTokens,
        contextLimitTokens: budget.contextLimitTokens,
        summaryReserveTokens: totals.reserve,
        summaryTargetTokens: totals.reserve > 0 ? totals.reserve - SUMMARY_OVERHEAD_TOKENS : 0,
        estimatedCostUsd,
        cachedPrefixTokens: cached,
      },
      overBudget,
      notes,
      algorithm: options.algorithm,
      weighting: options.weighting,
      model: input.model,
      encoding: inputs.encoding,
      summaryRanges: summaryRanges(entries),
      summaryInsertAt,
      prefixReused: inputs.prefixReused,
      tokenCacheHits: inputs.cacheHits,
      ...(inputs.capped ? { capped: inputs.capped } : {}),
    },
  };
}
