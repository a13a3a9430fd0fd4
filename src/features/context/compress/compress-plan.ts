import type { PlanResult, Summarizer } from '../../../domain/engine/index.js';
import { buildItems, type SummaryChunk } from './build-items.js';
import type { CompressSettings } from './compress-settings.js';
import { appendFacts, factReceipt, type FactReceipt } from './fact-receipt.js';
import { transcriptText } from './message-text.js';
import { blockTokens, fitSummaryBlock, insertBlock, summaryBlock } from './summary-block.js';
import type { SummaryCache } from './summary-cache.js';
import { chooseLevel, type SummaryLevel } from './summary-level.js';
import { summarizeItems } from './summarize-items.js';

/** What compression did to one plan. */
export interface CompressOutcome {
  /** Messages to send: the plan's messages, plus the summary block when there is one. */
  messages: unknown[];
  level?: SummaryLevel;
  /** Messages represented in the summary block. */
  summarized: number;
  /** Messages marked `summarize` that were dropped instead (failure, no room). */
  dropped: number;
  calls: number;
  cacheHits: number;
  receipts: FactReceipt[];
  /** `keep_source` mode: ids of source messages whose facts did not survive (re-plan with them pinned). */
  keepSource: string[];
  notes: string[];
  /** Prompt tokens sent, summary block included (≤ the hard limit). */
  tokensAfter: number;
  blockTokens: number;
  truncated: boolean;
  /** The block as sent (for logs and tests). */
  block?: { role: 'system'; content: string };
}

/** Texts of the messages a chunk replaces (the facts that must survive). */
function coveredSources(chunk: SummaryChunk, messages: readonly unknown[]): Array<{ id: string; text: string }> {
  const covered = new Set(chunk.covers);
  return chunk.indices.flatMap((index, position) =>
    covered.has(chunk.ids[position]!) ? [{ id: chunk.ids[position]!, text: transcriptText(messages[index]) }] : [],
  );
}

/**
 * Replaces the plan's `summarize` messages by one summary block: picks the level, summarizes
 * (cached), checks facts, fits the block into the reserved tokens and inserts it after the
 * system prompts. Anything that fails is dropped (as without a summarizer) and noted.
 */
export async function compressPlan(input: {
  result: PlanResult;
  messages: readonly unknown[];
  summarizer: Summarizer;
  cache: SummaryCache;
  settings: CompressSettings;
  correction?: number;
  signal?: AbortSignal;
}): Promise<CompressOutcome> {
  const { result, messages, settings } = input;
  const { plan } = result;
  const base = plan.tokensAfter - plan.budget.summaryReserveTokens;
  const outcome: CompressOutcome = {
    messages: result.messages,
    summarized: 0,
    dropped: 0,
    calls: 0,
    cacheHits: 0,
    receipts: [],
    keepSource: [],
    notes: [],
    tokensAfter: base,
    blockTokens: 0,
    truncated: false,
  };
  const pending = plan.summaryRanges.reduce((sum, range) => sum + range.ids.length, 0);
  if (pending === 0) return outcome;
  outcome.dropped = pending;
  const level = chooseLevel(
    pending,
    plan.entries.filter((entry) => entry.role !== 'system' && entry.role !== 'developer').length,
    settings.levels,
  );
  if (!level) {
    outcome.notes.push(`no summary level enabled: ${pending} message(s) dropped`);
    return outcome;
  }
  outcome.level = level;
  const items = buildItems(result, messages, level);
  const allowed =
    plan.budget.limitTokens > 0
      ? Math.min(plan.budget.summaryReserveTokens, plan.budget.limitTokens - base)
      : plan.budget.summaryReserveTokens;
  const framing = blockTokens(
    summaryBlock(
      pending,
      items.map(() => ''),
    ),
    plan.encoding,
    input.correction,
  );
  if (allowed - framing < 16 * items.length) {
    outcome.notes.push(
      `no room for ${items.length} summaries in ${allowed} reserved tokens: ${pending} message(s) dropped`,
    );
    return outcome;
  }
  const total = items.reduce((sum, item) => sum + item.options[0]!.tokens, 0);
  const targetOf = (chunk: SummaryChunk) =>
    Math.max(
      16,
      Math.min(
        Math.ceil(chunk.tokens * settings.ratio),
        Math.floor(((allowed - framing) * chunk.tokens) / Math.max(1, total)),
      ),
    );
  const results = await summarizeItems({
    items,
    messages,
    targetOf,
    summarizer: input.summarizer,
    cache: input.cache,
    model: settings.model,
    ratio: settings.ratio,
    warm: settings.warm,
    signal: input.signal,
  });
  const good: Array<{ chunk: SummaryChunk; text: string; receipt: FactReceipt }> = [];
  for (const item of results) {
    if ('error' in item) {
      outcome.calls += 1;
      outcome.notes.push(
        `${item.item.options[0]!.level} summary of ${item.item.options[0]!.covers.length} message(s) failed (${item.error}); dropped instead, not cached`,
      );
      continue;
    }
    for (const { chunk, text: written, cached } of item.texts) {
      if (cached) outcome.cacheHits += 1;
      else outcome.calls += 1;
      const receipt = factReceipt(coveredSources(chunk, messages), written);
      let text = written;
      if (receipt.missing.length && settings.factReceipt === 'append') {
        text = appendFacts(text, receipt.missing);
        receipt.action = 'appended';
      } else if (receipt.missing.length && settings.factReceipt === 'keep_source') {
        receipt.action = 'kept_source';
        outcome.keepSource.push(...receipt.missingIn);
      }
      outcome.receipts.push(receipt);
      good.push({ chunk, text, receipt });
    }
  }
  if (results.some((item) => 'texts' in item && item.texts.length > 1))
    outcome.notes.push('conversation summary not cached yet: its segment summaries were used');
  if (good.length === 0) return outcome;
  const count = good.reduce((sum, item) => sum + item.chunk.covers.length, 0);
  const fitted = fitSummaryBlock(
    count,
    good.map((item) => item.text),
    allowed,
    plan.encoding,
    input.correction,
  );
  if (!fitted) {
    outcome.notes.push(`summary block does not fit in ${allowed} reserved tokens: ${pending} message(s) dropped`);
    return outcome;
  }
  if (fitted.truncated) {
    outcome.notes.push(`summary truncated to fit the ${allowed} reserved tokens`);
    outcome.receipts = good.map((item) => ({
      ...factReceipt(coveredSources(item.chunk, messages), fitted.block.content),
      action: item.receipt.action,
    }));
  }
  Object.assign(outcome, {
    messages: insertBlock(result, fitted.block),
    block: fitted.block,
    blockTokens: fitted.tokens,
    tokensAfter: base + fitted.tokens,
    summarized: count,
    dropped: pending - count,
    truncated: fitted.truncated,
  });
  return outcome;
}
