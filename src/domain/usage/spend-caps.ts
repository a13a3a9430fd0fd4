import { compare, decimalOf, parseDecimal, type Decimal } from '../pricing/decimal.js';
import { capPlaces, formatCapUsd, formatSpendUsd } from './format-money.js';
import { dailyPeriod, monthlyPeriod, resetPhrase, type BudgetPeriod } from './budget-periods.js';
import {
  groupScope,
  inGroup,
  modelMatches,
  modelScope,
  userGroups,
  type ScopedUser,
  type UserGroup,
} from './spend-scopes.js';

/** Caps of one scope in USD; null/absent = inherit, 0 = no cap. */
export interface CapPair {
  daily_usd?: number | null;
  monthly_usd?: number | null;
}

/** A group's caps: shared by its members (`daily_usd`, `monthly_usd`) and per member (`member_*`). */
export interface GroupCaps {
  daily_usd?: number | null;
  monthly_usd?: number | null;
  member_daily_usd?: number | null;
  member_monthly_usd?: number | null;
}

/** A model pattern's caps, shared by everyone using a matching model, or by one group's members (`group`). */
export interface ModelCaps {
  daily_usd?: number | null;
  monthly_usd?: number | null;
  group?: string | null;
}

/** The spend-limit valves this module reads (the group and model valves are absent on older configurations). */
export interface SpendCapValves {
  daily_limit_usd: number;
  monthly_limit_usd: number;
  role_limits: Record<string, CapPair>;
  user_limits: Record<string, CapPair>;
  group_limits?: Record<string, GroupCaps>;
  model_limits?: Record<string, ModelCaps>;
  group_members?: Record<string, string[]>;
}

/**
 * What a cap applies to: the user's own spend (from user_limits, a group's member cap, the role or the default), a
 * group's spend (the sum of its members'), a model pattern's spend (everyone's, or one group's members').
 */
export type CapTarget =
  | { kind: 'user'; source: 'user' | 'member' | 'role' | 'default'; group?: string }
  | { kind: 'group'; group: string }
  | { kind: 'model'; pattern: string; group?: string };

/** One cap in force for a user. */
export interface EffectiveCap {
  period: BudgetPeriod;
  limit: Decimal;
  /** What it applies to (the user's own spend when absent, as for callers that build caps by hand). */
  target?: CapTarget;
  /** The shared scope it is counted under (spend-scopes.ts); absent for the user's own caps. */
  scope?: string;
}

/** The user a cap is looked up for: id, email, role and the groups the hook's user object carries. */
export type CapUser = ScopedUser;

type Field = 'daily_usd' | 'monthly_usd';

/**
 * One per-user cap field by precedence: user_limits (by id, then email) > the user's groups' member caps (the lowest
 * positive one; a group's 0 only when no group sets a positive one) > role_limits > the default.
 */
function pick(
  valves: SpendCapValves,
  user: CapUser,
  groups: readonly UserGroup[],
  field: Field,
  fallback: number,
): { value: number; source: 'user' | 'member' | 'role' | 'default'; group?: string } {
  const byUser =
    (user.id ? valves.user_limits[user.id] : undefined) ?? (user.email ? valves.user_limits[user.email] : undefined);
  const own = byUser?.[field];
  if (own !== undefined && own !== null) return { value: own, source: 'user' };
  const memberField = field === 'daily_usd' ? 'member_daily_usd' : 'member_monthly_usd';
  let member: { value: number; group: string } | undefined;
  for (const [group, caps] of Object.entries(valves.group_limits ?? {})) {
    const value = caps?.[memberField];
    if (value === undefined || value === null || !inGroup(groups, group)) continue;
    const lower = member === undefined || (value > 0 && (member.value === 0 || value < member.value));
    if (lower) member = { value, group };
  }
  if (member) return { value: member.value, source: 'member', group: member.group };
  const byRole = user.role ? valves.role_limits[user.role]?.[field] : undefined;
  if (byRole !== undefined && byRole !== null) return { value: byRole, source: 'role' };
  return { value: fallback, source: 'default' };
}

/**
 * The ids a request's model goes by for `model_limits`: the id it names (`body.model`, a workspace model's own id)
 * and the id it is priced as (the price table's id of its base model: `openai/gpt-5` for a workspace model built on
 * `gpt-5`), so a pattern on a provider's model holds the workspace models built on it. The spend-limit inlet and the
 * recorded reply name the same two ids (both priced by the same table), so a reply counts where its request held.
 */
export type ModelIds = string | readonly (string | undefined)[];

/**
 * The caps in force for a user at `now`, for a request to `model` (model caps apply only with one): first the user's
 * own (monthly, then daily), then each of the user's groups' shared caps, then each model pattern's caps that one of
 * the model's ids matches. 0 or null means no cap. A user in several groups is held by each group's shared caps.
 */
export function effectiveCaps(valves: SpendCapValves, user: CapUser, now: number, model?: ModelIds): EffectiveCap[] {
  const ids = model === undefined ? [] : (typeof model === 'string' ? [model] : model).filter((id) => id !== undefined);
  const caps: EffectiveCap[] = [];
  const groups = userGroups(user, valves.group_members);
  const monthly = pick(valves, user, groups, 'monthly_usd', valves.monthly_limit_usd);
  const daily = pick(valves, user, groups, 'daily_usd', valves.daily_limit_usd);
  const own = (picked: ReturnType<typeof pick>): CapTarget => ({
    kind: 'user',
    source: picked.source,
    ...(picked.group === undefined ? {} : { group: picked.group }),
  });
  if (monthly.value > 0)
    caps.push({ period: monthlyPeriod(now), limit: decimalOf(monthly.value), target: own(monthly) });
  if (daily.value > 0) caps.push({ period: dailyPeriod(now), limit: decimalOf(daily.value), target: own(daily) });
  const shared = (
    target: CapTarget,
    scope: string,
    pair: { daily_usd?: number | null; monthly_usd?: number | null },
  ) => {
    if ((pair.monthly_usd ?? 0) > 0)
      caps.push({ period: monthlyPeriod(now), limit: decimalOf(pair.monthly_usd!), target, scope });
    if ((pair.daily_usd ?? 0) > 0)
      caps.push({ period: dailyPeriod(now), limit: decimalOf(pair.daily_usd!), target, scope });
  };
  for (const [group, pair] of Object.entries(valves.group_limits ?? {}))
    if (pair && inGroup(groups, group)) shared({ kind: 'group', group }, groupScope(group), pair);
  if (ids.length > 0)
    for (const [pattern, pair] of Object.entries(valves.model_limits ?? {})) {
      if (!pair || !ids.some((id) => modelMatches(pattern, id))) continue;
      const group = pair.group ?? undefined;
      if (group !== undefined && !inGroup(groups, group)) continue;
      shared({ kind: 'model', pattern, ...(group === undefined ? {} : { group }) }, modelScope(pattern, group), pair);
    }
  return caps;
}

/**
 * The shared scopes a recorded reply of `user` to `model` counts toward: every scope a cap of the valves puts on that
 * user and model (whether or not the user's role is exempt: an admin's spend is the group's spend too).
 */
export function spendScopes(valves: SpendCapValves, user: CapUser, model: ModelIds, now: number): string[] {
  const scopes = new Set<string>();
  for (const cap of effectiveCaps(valves, user, now, model)) if (cap.scope) scopes.add(cap.scope);
  return [...scopes];
}

/**
 * Whose budget a message names: "Your monthly budget", "Your daily budget as a member of 'Research'", "Your group
 * 'Research' daily budget", "The monthly budget for 'openai/gpt-5*'", "Your group 'Research' daily budget for 'openai/gpt-5*'".
 */
export function capSubject(cap: EffectiveCap): string {
  const kind = cap.period.kind;
  const target = cap.target;
  if (!target || target.kind === 'user')
    return target?.source === 'member' ? `Your ${kind} budget as a member of '${target.group}'` : `Your ${kind} budget`;
  if (target.kind === 'group') return `Your group '${target.group}' ${kind} budget`;
  if (target.group === undefined) return `The ${kind} budget for '${target.pattern}'`;
  return `Your group '${target.group}' ${kind} budget for '${target.pattern}'`;
}

/** The status line's label of whose spend it shows: "spend", "group 'Research' spend", "'openai/gpt-5*' spend". */
function spendLabel(cap: EffectiveCap): string {
  const target = cap.target;
  if (!target || target.kind === 'user') return 'spend';
  if (target.kind === 'group') return `group '${target.group}' spend`;
  if (target.group === undefined) return `'${target.pattern}' spend`;
  return `group '${target.group}' spend on '${target.pattern}'`;
}

/** True when `spent` (decimal string) has reached the cap. */
export function capReached(cap: EffectiveCap, spent: string): boolean {
  return compare(parseDecimal(spent) ?? 0n, cap.limit) >= 0;
}

/** The message a user reads: "Your monthly budget of $20.00 is used up; it resets on 1 December." (`$0.005` stays `$0.005`.) */
export function capMessage(cap: EffectiveCap): string {
  return `${capSubject(cap)} of ${formatCapUsd(cap.limit)} is used up; it resets ${resetPhrase(cap.period)}.`;
}

/**
 * The message when the cap has room, but less than this request's estimated cost (`inUse` = recorded
 * spend + the user's requests still in flight): "Your monthly budget of $0.10 has $0.0025 left, less than
 * this request's estimated $0.0075; it resets on 1 December."
 */
export function noRoomMessage(cap: EffectiveCap, inUse: Decimal, estimate: Decimal): string {
  if (compare(inUse, cap.limit) >= 0) return capMessage(cap);
  const places = capPlaces(cap.limit);
  return (
    `${capSubject(cap)} of ${formatCapUsd(cap.limit)} has ${formatSpendUsd(cap.limit - inUse, places)} left, ` +
    `less than this request's estimated ${formatSpendUsd(estimate, places)}; it resets ${resetPhrase(cap.period)}.`
  );
}

/** `used` ÷ `limit` as a number, to the millionth (0 for no limit): how much of a cap is in use. */
export function capShare(used: Decimal, limit: Decimal): number {
  return limit > 0n ? Number((used * 1_000_000n) / limit) / 1_000_000 : 0;
}

/** The whole percent of a cap in use (rounded down: 85 % until it is 86 %). */
export function capPercent(cap: EffectiveCap, inUse: Decimal): number {
  return cap.limit > 0n ? Number((inUse * 100n) / cap.limit) : 0;
}

/** The status line near a cap: "spend: $0.0850 of $0.10 monthly cap (85 %)" (`inUse` includes requests in flight). */
export function nearCapStatus(cap: EffectiveCap, inUse: Decimal): string {
  const percent = capPercent(cap, inUse);
  return `${spendLabel(cap)}: ${formatSpendUsd(inUse, capPlaces(cap.limit))} of ${formatCapUsd(cap.limit)} ${cap.period.kind} cap (${percent} %)`;
}

/** True when a filter's valves are the spend-limit filter's (the caps this module reads). */
export function isSpendCapValves(
  valves: Record<string, unknown>,
): valves is Record<string, unknown> & SpendCapValves & { exempt_roles?: unknown } {
  return (
    typeof valves.daily_limit_usd === 'number' &&
    typeof valves.monthly_limit_usd === 'number' &&
    typeof valves.role_limits === 'object' &&
    valves.role_limits !== null &&
    typeof valves.user_limits === 'object' &&
    valves.user_limits !== null
  );
}
