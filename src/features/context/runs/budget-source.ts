import type { PlanBudget } from '../../../domain/engine/index.js';
import type { ActiveFlags } from '../../../domain/flags/types.js';
import type { ContextUserValves, ContextValves } from '../context-valves.js';

/**
 * Where the budget in force came from: the admin's `max_tokens` valve, the user's own `max_tokens`, the chat's
 * `!target`, the admin's `target_tokens`, a share of the model's context (`context_fraction`), the cost limit
 * (`max_cost_usd`), `!full` (no budget), or none at all.
 */
export type BudgetSource =
  | 'valve'
  | 'user valve'
  | '!target'
  | 'target valve'
  | 'context share'
  | 'cost'
  | '!full'
  | 'none';

/** The budget's source for one run, read from the valves, the flags and the plan's budget. */
export function budgetSource(
  budget: PlanBudget,
  valves: Pick<ContextValves, 'max_tokens' | 'target_tokens' | 'allow_full'>,
  user: Pick<ContextUserValves, 'max_tokens'>,
  flags: Pick<ActiveFlags, 'get'>,
): BudgetSource {
  if (flags.get('full') === true && valves.allow_full !== false) return '!full';
  const target = flags.get('target');
  if (typeof target === 'number' && target > 0 && budget.targetTokens === target) return '!target';
  const limit = budget.limitTokens;
  if (limit > 0 && budget.contextLimitTokens === limit && limit < (budget.maxTokens || Infinity))
    return 'context share';
  if (limit > 0 && budget.costLimitTokens === limit && limit < (budget.maxTokens || Infinity)) return 'cost';
  const userMax = user.max_tokens ?? 0;
  if (limit > 0 && userMax > 0 && limit === userMax && (valves.max_tokens === 0 || userMax < valves.max_tokens))
    return 'user valve';
  if (valves.target_tokens > 0 && budget.targetTokens === valves.target_tokens) return 'target valve';
  if (limit > 0) return 'valve';
  return 'none';
}
