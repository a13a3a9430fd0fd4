import { decimalOf, type Decimal } from '../pricing/decimal.js';
import { dailyPeriod, monthlyPeriod } from './budget-periods.js';
import type { CapTarget, EffectiveCap, SpendCapValves } from './spend-caps.js';
import { groupScope, modelScope } from './spend-scopes.js';

/** One shared budget the spend-limit valves define: a group's (group_limits) or a model pattern's (model_limits). */
export interface SharedBudget {
  /** Its scope key (spend-scopes.ts): the counters its spend is read from. */
  scope: string;
  target: Extract<CapTarget, { kind: 'group' | 'model' }>;
  /** Its shared caps in force (monthly, then daily; none for a group with member caps only). */
  caps: EffectiveCap[];
  /** A group's caps on each member's own spend (`member_daily_usd`, `member_monthly_usd`); null when not set or 0. */
  member: { daily: Decimal | null; monthly: Decimal | null } | null;
}

/** A valve's USD amount as a cap: a positive number, else none (0, null and absent mean no cap). */
const amount = (value: unknown): Decimal | null =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? decimalOf(value) : null;

/**
 * Every shared budget of the valves at `now`, whoever spends: each `group_limits` group with a shared or a per-member
 * cap (in the valves' order), then each `model_limits` pattern with a cap. The caps are the ones effectiveCaps puts on
 * a member of the group, or on a request to a matching model, with the same scope keys.
 */
export function sharedBudgets(valves: SpendCapValves, now: number): SharedBudget[] {
  const budgets: SharedBudget[] = [];
  const capsOf = (target: SharedBudget['target'], scope: string, pair: Record<string, unknown>): EffectiveCap[] => {
    const caps: EffectiveCap[] = [];
    const monthly = amount(pair.monthly_usd);
    const daily = amount(pair.daily_usd);
    if (monthly !== null) caps.push({ period: monthlyPeriod(now), limit: monthly, target, scope });
    if (daily !== null) caps.push({ period: dailyPeriod(now), limit: daily, target, scope });
    return caps;
  };
  for (const [group, pair] of Object.entries(valves.group_limits ?? {})) {
    if (!pair || typeof pair !== 'object') continue;
    const target = { kind: 'group', group } as const;
    const scope = groupScope(group);
    const caps = capsOf(target, scope, pair as Record<string, unknown>);
    const daily = amount(pair.member_daily_usd);
    const monthly = amount(pair.member_monthly_usd);
    const member = daily === null && monthly === null ? null : { daily, monthly };
    if (caps.length > 0 || member) budgets.push({ scope, target, caps, member });
  }
  for (const [pattern, pair] of Object.entries(valves.model_limits ?? {})) {
    if (!pair || typeof pair !== 'object') continue;
    const group = typeof pair.group === 'string' ? pair.group : undefined;
    const target = { kind: 'model', pattern, ...(group === undefined ? {} : { group }) } as const;
    const scope = modelScope(pattern, group);
    const caps = capsOf(target, scope, pair as Record<string, unknown>);
    if (caps.length > 0) budgets.push({ scope, target, caps, member: null });
  }
  return budgets;
}
