import { capForcedUnits, recentKept } from '../constraints/cap-forced.js';
import { markUnits } from '../constraints/mark-units.js';
import { findCompactionSummary } from '../conversation/compaction-summary.js';
import { parseConversation } from '../conversation/parse-conversation.js';
import { resolveEngineOptions } from '../options/default-engine-options.js';
import { resolveBudget } from '../budget/resolve-budget.js';
import { fillRanking } from '../selection/fill-by-weight.js';
import { selectionByName } from '../selection/selection-by-name.js';
import { grantedSummaryReserve, summaryReserve } from '../summarize/summary-reserve.js';
import { countConversationTokens } from '../tokens/count-conversation-tokens.js';
import { sharedTermCache } from '../weighting/lru-term-cache.js';
import { REPLY_PRIMING_TOKENS } from '../tokens/count-message-tokens.js';
import { encodingForModel } from '../tokens/encoding-for-model.js';
import { loadEncoder } from '../tokens/load-encoder.js';
import { markTrimmed, type TrimOutcome, trimLongMessages } from '../trim/trim-long-messages.js';
import type { PlanInput, PlanResult, TermCache, TermCounts, TokenCache } from '../types.js';
import { assembleResult } from './assemble-result.js';
import { buildEntries } from './build-entries.js';
import { buildUnits } from './build-units.js';
import { nodeWeights } from './node-weights.js';
import { repairSelection, selectionTotals } from './repair-selection.js';
import { repairUnits } from './repair-units.js';
import { refillSelection } from './refill-selection.js';

/** A usable correction factor (positive and finite), else 1. */
function correctionOf(value: number | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 1;
}

/**
 * The token and term caches of the pass over trimmed messages: the copies' entries (keyed by their originals' ids)
 * are kept in maps of this pass only, so the shared caches keep the originals' counts for the next turn.
 */
function trimmedCaches(
  input: PlanInput,
  trim: TrimOutcome,
  encoding: string,
): Pick<PlanInput, 'tokenCache' | 'termCache'> {
  const tokens = new Map<string, number>();
  for (const item of trim.trimmed) {
    tokens.set(item.id, item.rawTokens);
    tokens.set(`${encoding}:${item.id}`, item.rawTokens);
  }
  const base = input.tokenCache;
  const tokenCache: TokenCache = {
    get: (key) => tokens.get(key) ?? base?.get(key),
    set: (key, value) => {
      if (!tokens.has(key)) base?.set(key, value);
    },
  };
  const ids = new Set(trim.trimmed.map((item) => item.id));
  const own = new Map<string, TermCounts>();
  const terms = input.termCache ?? sharedTermCache;
  const termCache: TermCache = {
    get: (key) => (ids.has(key) ? own.get(key) : terms.get(key)),
    set: (key, counts) => (ids.has(key) ? own.set(key, counts) : terms.set(key, counts)),
  };
  return { tokenCache, termCache };
}

/**
 * Plans what of the conversation the model sees: counts tokens (cached by message id),
 * scores messages when trimming is needed, selects within the budget, repairs the order
 * constraints, and returns the messages to send (same objects as the input) with the plan.
 * Synchronous and pure apart from filling the given token cache.
 */
export function planContext(input: PlanInput): PlanResult {
  return planMessages(input, undefined);
}

/** `planContext`, once more on the trimmed messages when long messages of earlier turns were trimmed. */
function planMessages(input: PlanInput, trim: TrimOutcome | undefined): PlanResult {
  const options = resolveEngineOptions(input.options);
  const conversation = parseConversation(Array.isArray(input.messages) ? input.messages : [], trim?.ids);
  const { nodes } = conversation;
  const encoding = encodingForModel(input.model);
  // A trimmed copy keeps its original's id: its counts live beside the caches, never under that id in them.
  const caches = trim ? trimmedCaches(input, trim, encoding.encoding) : input;
  const notes: string[] = [];
  if (!encoding.exact)
    notes.push(
      `tokens estimated with ${encoding.encoding} (no exact tokenizer for ${input.model ?? 'an unnamed model'})`,
    );
  const { tokens, cacheHits } = countConversationTokens(
    nodes,
    encoding.encoding,
    caches.tokenCache,
    correctionOf(input.correction),
  );
  // Open WebUI's summary of the turns it compacted away rides in a system message: kept and counted with it.
  const compaction = findCompactionSummary(nodes, encoding.encoding, input.tokenCache, correctionOf(input.correction));
  if (compaction)
    notes.push(
      `Open WebUI's conversation summary kept (${compaction.tokens} tokens, in system message ${compaction.index})`,
    );
  let fixed = REPLY_PRIMING_TOKENS;
  let tokensBefore = REPLY_PRIMING_TOKENS;
  for (const node of nodes) {
    tokensBefore += tokens[node.index]!;
    if (node.isSystem) fixed += tokens[node.index]!;
  }
  if (input.externalScores && options.weighting !== 'composite')
    notes.push(`external scores ignored: weighting is ${options.weighting}, not composite`);
  const budget = resolveBudget(options, input.model, input.pricing);
  notes.push(...budget.notes);
  if (!trim) {
    const outcome = trimLongMessages({
      messages: input.messages,
      conversation,
      tokens,
      tokensBefore,
      aim: budget.aim,
      options,
      encoder: loadEncoder(encoding.encoding),
      correction: correctionOf(input.correction),
      echo: input.echo?.terms,
      encoding: encoding.encoding,
    });
    if (outcome) return planMessages({ ...input, messages: outcome.messages }, outcome);
  }
  if (conversation.orphans.size > 0)
    notes.push(`${conversation.orphans.size} message(s) dropped: tool call/result without its partner`);
  const weights = nodeWeights(
    conversation,
    options,
    tokensBefore > budget.aim,
    input.externalScores,
    caches.termCache ?? sharedTermCache,
    input.echo?.messages,
  );
  if (input.echo) {
    const echoed = nodes.reduce((sum, node) => sum + (input.echo!.messages[node.id] ? 1 : 0), 0);
    if (echoed > 0) notes.push(`echo loop: ${echoed} message(s) a previous reply used weigh more`);
  }
  const marks = markUnits(conversation, options, input.marks ?? {}, input.keepTags ?? []);
  const units = buildUnits(conversation, tokens, weights, marks);
  // What a user forced in (pins, tags, recent past the guaranteed ones) only while it fits the hard limit.
  const capped = options.capForced ? capForcedUnits(units, marks, budget.hard, fixed, options) : undefined;
  const ranking = fillRanking(units, conversation.lastUserIndex >= 0 ? nodes[conversation.lastUserIndex]!.text : '');
  const mandatory = units.reduce((sum, unit) => sum + (unit.mandatory ? unit.tokens : 0), 0);
  const reserveGuess =
    options.summarize && Number.isFinite(budget.aim)
      ? grantedSummaryReserve(
          summaryReserve(Math.max(0, tokensBefore - budget.aim), options.summaryRatio, options.summaryMaxTokens),
          budget.aim,
          Infinity,
        )
      : 0;
  const committed = fixed + mandatory + reserveGuess;
  const algorithm = selectionByName(options.algorithm);
  const ids = nodes.map((node) => node.id);
  const selection = algorithm.select({
    units,
    available: budget.aim - committed,
    limit: budget.aim,
    committed,
    options,
    ids,
    previousSequence: input.previousSequence,
    ranking,
  });
  notes.push(...selection.notes);
  const kept = selection.kept;
  const droppedForOrder = repairSelection(
    repairUnits(units, options.algorithm, selection),
    kept,
    fixed,
    budget.aim,
    options,
  );
  refillSelection(units, kept, fixed, budget.aim, options, droppedForOrder, ranking);
  if (capped?.recent) capped.recent.kept = recentKept(units, kept, options.recent);
  if (capped)
    notes.push(
      `forced messages held to the limit of ${capped.limitTokens} tokens: ${[
        capped.recent ? `recent=${capped.recent.asked} kept ${capped.recent.kept}` : '',
        capped.pinned ? `${capped.pinned} pinned left to selection` : '',
        capped.tagged ? `${capped.tagged} tagged left to selection` : '',
      ]
        .filter(Boolean)
        .join(', ')}`,
    );
  if (droppedForOrder.size > 0)
    notes.push(`${droppedForOrder.size} leading message(s) removed so the conversation starts with a user message`);
  const totals = selectionTotals(units, kept, options, fixed, budget.aim);
  const summarizing = options.summarize === true && totals.reserve > 0;
  if (options.summarize && !summarizing && units.some((unit) => !kept[unit.position] && !unit.excluded))
    notes.push('no room left for a summary: over-budget messages are dropped');
  const entries = buildEntries({ conversation, units, kept, marks, tokens, weights, droppedForOrder, summarizing });
  const members = (positions: readonly number[] | undefined) =>
    (positions ?? []).filter((position) => kept[position]).flatMap((position) => units[position]!.members);
  const recalled = new Set(members(selection.recalled));
  const result = assembleResult({
    input,
    options,
    conversation,
    entries,
    tokens,
    tokensBefore,
    totals,
    fixed,
    budget,
    notes,
    encoding: encoding.encoding,
    cacheHits,
    prefixReused: selection.prefixReused ?? 0,
    recalled,
    leading: members(selection.leading),
    capped,
  });
  if (trim) {
    markTrimmed(result.plan.entries, trim);
    result.plan.tokensBefore = trim.tokensBefore;
    const leftOut = trim.trimmed.reduce((sum, item) => sum + item.leftOut, 0);
    notes.push(
      `${trim.trimmed.length} long message(s) of earlier turns trimmed to the lines the question needs (${leftOut.toLocaleString('en-US')} lines or items left out)`,
    );
  }
  if (compaction) {
    result.plan.compactionSummary = compaction;
    const entry = result.plan.entries[compaction.index];
    if (entry) entry.reason = "system message with Open WebUI's conversation summary (always kept)";
  }
  return result;
}
