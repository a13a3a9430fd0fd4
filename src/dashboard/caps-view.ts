import { compare, formatDecimal, parseDecimal, type Decimal } from '../pricing/decimal.js';
import { effectiveCaps, type SpendCapValves } from '../usage/spend-caps.js';
import { monthlyPeriod } from '../usage/budget-periods.js';
import { addDays } from '../usage/day-range.js';
import { utcDay } from '../usage/daily-usage.js';
import type { Ledger } from '../usage/types.js';

/** One cap of one user as the Caps view shows it. */
export interface CapUsage {
  period: 'daily' | 'monthly';
  /** Exact decimal strings (USD). */
  spent: string;
  cap: string;
  /** spent ÷ cap in percent, rounded to 0.1. */
  percent: number;
  /** When the period ends and spending starts over (ISO, UTC). */
  resetsAt: string;
  reached: boolean;
}

/** A user with at least one cap in force. */
export interface UserCaps {
  user: string;
  role: string | null;
  caps: CapUsage[];
  /** A cap is reached: the spend-limit filter answers 429 until the reset. */
  blocked: boolean;
}

/** `GET /usage/caps`: the caps in force and how much of them is used. */
export interface CapsView {
  /** The spend-limit filter read, or null when none is loaded. */
  filter: string | null;
  at: string;
  users: UserCaps[];
  /** Users blocked now (a daily or monthly cap reached). */
  blocked: string[];
}

const isCapValves = (valves: Record<string, unknown>): valves is Record<string, unknown> & SpendCapValves =>
  typeof valves.daily_limit_usd === 'number' &&
  typeof valves.monthly_limit_usd === 'number' &&
  typeof valves.role_limits === 'object' &&
  typeof valves.user_limits === 'object';

/**
 * Caps of every user who spent this month or has a cap of their own, read with the spend-limit
 * filter's rules (user over role over default; exempt roles skipped; a user's role is the one
 * on their newest record). Spent amounts are one counter read per cap.
 */
export async function capsView(options: {
  filters: ReadonlyArray<{ id: string; valves: Record<string, unknown> }>;
  ledger: Ledger;
  now: number;
}): Promise<CapsView> {
  const { ledger, now } = options;
  const filter = options.filters.find((candidate) => isCapValves(candidate.valves));
  const view: CapsView = { filter: filter?.id ?? null, at: new Date(now).toISOString(), users: [], blocked: [] };
  if (!filter || !isCapValves(filter.valves)) return view;
  const valves = filter.valves;
  const exempt = Array.isArray(valves.exempt_roles) ? (valves.exempt_roles as string[]) : [];
  const month = monthlyPeriod(now);
  const spenders = await ledger.daily(utcDay(month.from), addDays(utcDay(month.to - 1), 1), 'user');
  const users = new Set([...spenders.map((row) => row.key), ...Object.keys(valves.user_limits)]);
  for (const user of [...users].sort()) {
    const newest = (await ledger.latest({ userId: user }, 1)).records[0];
    const role = newest?.userRole ?? null;
    if (role && exempt.includes(role)) continue;
    const caps = effectiveCaps(valves, { id: user, email: user, ...(role ? { role } : {}) }, now);
    if (caps.length === 0) continue;
    const usage: CapUsage[] = [];
    for (const cap of caps) {
      const spent = await ledger.spent(user, cap.period.from, cap.period.to);
      const amount = parseDecimal(spent) ?? 0n;
      usage.push({
        period: cap.period.kind,
        spent,
        cap: formatDecimal(cap.limit),
        percent: percentOf(amount, cap.limit),
        resetsAt: new Date(cap.period.to).toISOString(),
        reached: compare(amount, cap.limit) >= 0,
      });
    }
    usage.sort((a, b) => (a.period < b.period ? -1 : 1));
    const blocked = usage.some((cap) => cap.reached);
    view.users.push({ user, role, caps: usage, blocked });
    if (blocked) view.blocked.push(user);
  }
  return view;
}

/** spent ÷ cap in percent, rounded to one decimal (exact integer division first, then one rounding). */
function percentOf(spent: Decimal, cap: Decimal): number {
  return Math.round(Number((spent * 10_000n) / cap) / 10) / 10;
}
