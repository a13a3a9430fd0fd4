import { compare, decimalOf, parseDecimal, type Decimal } from '../pricing/decimal.js';
import { capPlaces, formatCapUsd, formatSpendUsd } from './format-money.js';
import { dailyPeriod, monthlyPeriod, resetPhrase, type BudgetPeriod } from './budget-periods.js';

/** Caps of one scope in USD; null/absent = inherit, 0 = no cap. */
export interface CapPair {
  daily_usd?: number | null;
  monthly_usd?: number | null;
}

/** The spend-limit valves this module reads. */
export interface SpendCapValves {
  daily_limit_usd: number;
  monthly_limit_usd: number;
  role_limits: Record<string, CapPair>;
  user_limits: Record<string, CapPair>;
}

/** One cap in force for a user. */
export interface EffectiveCap {
  period: BudgetPeriod;
  limit: Decimal;
}

function pick(
  valves: SpendCapValves,
  user: { id?: string; email?: string; role?: string },
  field: keyof CapPair,
  fallback: number,
): number {
  const byUser =
    (user.id ? valves.user_limits[user.id] : undefined) ?? (user.email ? valves.user_limits[user.email] : undefined);
  const byRole = user.role ? valves.role_limits[user.role] : undefined;
  return byUser?.[field] ?? byRole?.[field] ?? fallback;
}

/**
 * The caps in force for a user at `now`, monthly first: a per-user override (by id or email)
 * wins over the role's cap, which wins over the default; 0 means no cap.
 */
export function effectiveCaps(
  valves: SpendCapValves,
  user: { id?: string; email?: string; role?: string },
  now: number,
): EffectiveCap[] {
  const caps: EffectiveCap[] = [];
  const monthly = pick(valves, user, 'monthly_usd', valves.monthly_limit_usd);
  const daily = pick(valves, user, 'daily_usd', valves.daily_limit_usd);
  if (monthly > 0) caps.push({ period: monthlyPeriod(now), limit: decimalOf(monthly) });
  if (daily > 0) caps.push({ period: dailyPeriod(now), limit: decimalOf(daily) });
  return caps;
}

/** True when `spent` (decimal string) has reached the cap. */
export function capReached(cap: EffectiveCap, spent: string): boolean {
  return compare(parseDecimal(spent) ?? 0n, cap.limit) >= 0;
}

/** The message a user reads: "Your monthly budget of $20.00 is used up; it resets on 1 December." (`$0.005` stays `$0.005`.) */
export function capMessage(cap: EffectiveCap): string {
  return `Your ${cap.period.kind} budget of ${formatCapUsd(cap.limit)} is used up; it resets ${resetPhrase(cap.period)}.`;
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
    `Your ${cap.period.kind} budget of ${formatCapUsd(cap.limit)} has ${formatSpendUsd(cap.limit - inUse, places)} left, ` +
    `less than this request's estimated ${formatSpendUsd(estimate, places)}; it resets ${resetPhrase(cap.period)}.`
  );
}

/** The status line near a cap: "spend: $0.0850 of $0.10 monthly cap (85 %)" (`inUse` includes requests in flight). */
export function nearCapStatus(cap: EffectiveCap, inUse: Decimal): string {
  const percent = cap.limit > 0n ? Number((inUse * 100n) / cap.limit) : 0;
  return `spend: ${formatSpendUsd(inUse, capPlaces(cap.limit))} of ${formatCapUsd(cap.limit)} ${cap.period.kind} cap (${percent} %)`;
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
