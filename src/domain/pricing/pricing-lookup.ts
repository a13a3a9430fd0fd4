import type { CostUsageCounts, ModelPrice, PricedCost, PricingLookup } from './types.js';
import type { ModelIndex } from './model-index.js';
import { resolveModelId } from './resolve-model-id.js';
import { computeCost } from './compute-cost.js';
import { formatDecimal } from './decimal.js';

/**
 * PricingLookup over whatever ModelIndex `current()` returns (the service swaps tables on
 * refresh; lookups always see the latest). `now` is injectable for time-window overrides.
 */
export function createPricingLookup(current: () => ModelIndex, now: () => number = Date.now): PricingLookup {
  const resolveId = (model: string, baseModelId?: string | null): string | undefined => {
    const index = current();
    return (baseModelId ? resolveModelId(baseModelId, index) : undefined) ?? resolveModelId(model, index);
  };
  const resolve = (model: string, metadata?: { baseModelId?: string | null }): ModelPrice | undefined => {
    const id = resolveId(model, metadata?.baseModelId);
    return id === undefined ? undefined : current().models[id];
  };
  const priced = (
    model: string,
    usage: CostUsageCounts,
    options: { at?: number; baseModelId?: string | null } = {},
  ): PricedCost | undefined => {
    const price = resolve(model, { baseModelId: options.baseModelId });
    if (!price) return undefined;
    const cost = computeCost(price, usage, options.at ?? now());
    return cost === undefined ? undefined : { cost: formatDecimal(cost), pricedAs: price.id };
  };
  return {
    resolve,
    contextLength: (model) => resolve(model)?.contextLength,
    estimateCost: (model, usage) => priced(model, usage)?.cost,
    computeCost: priced,
  };
}
