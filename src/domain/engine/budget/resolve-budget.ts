import type { PricingLookup } from '../../pricing/types.js';
import type { EngineOptions } from '../types.js';
import { costLimitTokens } from './cost-limit-tokens.js';

/** The limits in force for one run (Infinity = none). */
export interface ResolvedBudget {
  /** Hard limit: min of maxTokens, cost and context-fraction limits. */
  hard: number;
  /** What selection aims for: min(hard, soft target). */
  aim: number;
  costLimitTokens?: number;
  contextLimitTokens?: number;
  notes: string[];
}

/**
 * Resolves the token, soft-target, cost (noted as inactive when the model has no price) and
 * context-fraction limits. `full` switches every limit off.
 */
export function resolveBudget(
  options: EngineOptions,
  model: string | undefined,
  pricing: PricingLookup | undefined,
): ResolvedBudget {
  const notes: string[] = [];
  if (options.full) return { hard: Infinity, aim: Infinity, notes: ['full: no budget, everything valid is sent'] };
  let hard = options.maxTokens > 0 ? options.maxTokens : Infinity;
  let contextLimit: number | undefined;
  if (options.contextFraction !== undefined && options.contextFraction > 0) {
    const length = model ? pricing?.contextLength(model) : undefined;
    if (length && length > 0) {
      contextLimit = Math.floor(length * Math.min(1, options.contextFraction));
      hard = Math.min(hard, contextLimit);
    } else notes.push('context fraction inactive: context length of the model is unknown');
  }
  let costLimit: number | undefined;
  if (options.maxCostUsd !== undefined && options.maxCostUsd > 0) {
    if (!pricing || !model) notes.push('cost budget inactive: no pricing available');
    else {
      costLimit = costLimitTokens(pricing, model, options.maxCostUsd, options.expectedCompletionTokens);
      if (costLimit === undefined) notes.push(`cost budget inactive: no price for model ${model}`);
      else hard = Math.min(hard, costLimit);
    }
  }
  const target = options.targetTokens !== undefined && options.targetTokens > 0 ? options.targetTokens : Infinity;
  return { hard, aim: Math.min(hard, target), costLimitTokens: costLimit, contextLimitTokens: contextLimit, notes };
}
