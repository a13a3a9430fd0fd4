import type { PricingLookup } from '../../pricing/types.js';

/** Upper bound searched for a cost limit, in prompt tokens. */
const MAX_SEARCH_TOKENS = 100_000_000;

/**
 * Largest prompt size whose estimated cost (prompt + expected completion) stays within
 * `maxCostUsd`, by binary search on `estimateCost` (tiered prices included); undefined
 * when the model is not priced.
 */
export function costLimitTokens(
  pricing: PricingLookup,
  model: string,
  maxCostUsd: number,
  completionTokens: number,
): number | undefined {
  const cost = (promptTokens: number) => {
    const value = pricing.estimateCost(model, { promptTokens, completionTokens });
    return value === undefined ? undefined : Number(value);
  };
  const atZero = cost(0);
  if (atZero === undefined || !Number.isFinite(atZero)) return undefined;
  if (atZero > maxCostUsd) return 0;
  let low = 0;
  let high = MAX_SEARCH_TOKENS;
  if ((cost(high) ?? Infinity) <= maxCostUsd) return high;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if ((cost(middle) ?? Infinity) <= maxCostUsd) low = middle;
    else high = middle;
  }
  return low;
}
