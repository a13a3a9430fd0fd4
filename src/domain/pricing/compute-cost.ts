import type { CostUsageCounts, ModelPrice } from './types.js';
import { applyOverrides } from './apply-overrides.js';
import { ZERO, add, decimalOf, mul, mulInt, type Decimal } from './decimal.js';

/** Token counts in OpenAI subset semantics: cached and cache-write ⊂ prompt, reasoning ⊂ completion. */
export type CostUsage = CostUsageCounts;

const price = (value: string | undefined, fallback?: string): Decimal | undefined =>
  value !== undefined ? decimalOf(value) : fallback !== undefined ? decimalOf(fallback) : undefined;

/** Anthropic's cache-write multiples of the input price: 5-minute writes 1.25×, 1-hour writes 2×. */
const WRITE_5M = decimalOf('1.25');
const WRITE_1H = decimalOf(2);

/**
 * Exact USD cost of one request, or undefined when the prompt or completion price is
 * unknown. Applies matching overrides for the whole request, prices cached reads at
 * `input_cache_read` (else the prompt rate), 5-minute cache writes at `input_cache_write` (else 1.25× the prompt
 * rate) and 1-hour writes at `input_cache_write_1h` (else 2× the prompt rate), reasoning at
 * `internal_reasoning` when priced separately, adds the per-request fee, then the discount.
 */
export function computeCost(base: ModelPrice, usage: CostUsage, at: number): Decimal | undefined {
  const model = applyOverrides(base, { promptTokens: usage.promptTokens, at });
  const prompt = price(model.prompt);
  const completion = price(model.completion);
  if (prompt === undefined || completion === undefined) return undefined;
  const cached = Math.max(0, usage.cachedTokens ?? 0);
  const cacheWrite = Math.max(0, usage.cacheWriteTokens ?? 0);
  const oneHour = Math.min(cacheWrite, Math.max(0, usage.cacheWrite1hTokens ?? 0));
  const uncached = Math.max(0, usage.promptTokens - cached - cacheWrite);
  const completionTokens = Math.max(0, usage.completionTokens ?? 0);
  const reasoningPrice = price(model.internalReasoning);
  const separateReasoning = reasoningPrice !== undefined && reasoningPrice !== ZERO && reasoningPrice !== completion;
  const reasoning = separateReasoning ? Math.min(completionTokens, Math.max(0, usage.reasoningTokens ?? 0)) : 0;
  let total = add(
    mulInt(prompt, uncached),
    mulInt(price(model.inputCacheRead, model.prompt)!, cached),
    mulInt(price(model.inputCacheWrite) ?? mul(prompt, WRITE_5M), cacheWrite - oneHour),
    mulInt(price(model.inputCacheWrite1h) ?? mul(prompt, WRITE_1H), oneHour),
    mulInt(completion, completionTokens - reasoning),
    separateReasoning ? mulInt(reasoningPrice, reasoning) : ZERO,
    price(model.request) ?? ZERO,
    mulInt(price(model.webSearch) ?? ZERO, usage.webSearches ?? 0),
    mulInt(price(model.image) ?? ZERO, usage.images ?? 0),
  );
  if (model.discount !== undefined) total = mul(total, decimalOf(1) - decimalOf(model.discount));
  return total;
}
