import { planContext, type EngineOptions, type Plan, type TokenCache } from '../../src/domain/engine/index.js';
import type { SelectionInput } from './selection.js';

/** Indexes of the messages a plan sends in full (kept or pinned), ascending. */
export function keptIndexes(plan: Plan): number[] {
  return plan.entries
    .filter((entry) => entry.disposition === 'keep' || entry.disposition === 'pinned')
    .map((entry) => entry.index);
}

/** The engine as a selection strategy: plans under `maxTokens = budget` and keeps messages sent in full. */
export function engineSelection(
  options: Partial<EngineOptions>,
  tokenCache: TokenCache,
): (input: SelectionInput) => number[] {
  return (input) => {
    const { plan } = planContext({
      messages: [...input.messages],
      options: { ...options, maxTokens: input.budget },
      tokenCache,
    });
    return keptIndexes(plan);
  };
}
