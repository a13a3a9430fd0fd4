import { compare, formatDecimal, parseDecimal, type Decimal } from '../../domain/pricing/decimal.js';
import { effectiveCaps, isSpendCapValves } from '../../domain/usage/spend-caps.js';
import { sharedBudgets, type SharedBudget } from '../../domain/usage/shared-budgets.js';
import { monthlyPeriod } from '../../domain/usage/budget-periods.js';
import { addDays } from '../../domain/usage/day-range.js';
import { utcDay } from '../../domain/usage/daily-usage.js';
import { monthPace, paceWindow, type PaceMethod } from '../../domain/usage/month-pace.js';
import type { EffectiveCap } from '../../domain/usage/spend-caps.js';
import type { Ledger, UsageRecord } from '../../domain/usage/types.js';

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
  /** The month's pace (monthly caps; null for daily ones): see docs/accounting.md, "The month's pace". */
  pace: CapPace | null;
}

/** A monthly cap's projection as the Caps view shows it. */
export interface CapPace {
  /** Month-end spend at this pace (exact decimal string, to the nano-dollar). */
  projected: string;
  /** USD per day the rest of the month is projected at. */
  dailyRate: string;
  method: PaceMethod;
  /** The cap is reached before the month resets at this pace (already reached included). */
  passes: boolean;
  /** The UTC day it is reached (`YYYY-MM-DD`), or null. */
  passesOn: string | null;
}

/** A user with at least one cap in force. */
export interface UserCaps {
  /** The ledger's user id; a `user_limits` key that no record of this month resolves is listed as itself. */
  user: string;
  /** The email on the user's newest record (null when unknown). */
  email: string | null;
  role: string | null;
  caps: CapUsage[];
  /** A cap is reached: the spend-limit filter answers 429 until the reset. */
  blocked: boolean;
}

/** A group's budget or a model pattern's, shared by whoever it holds (group_limits, model_limits). */
export interface SharedCaps {
  /** Its scope key (`g:<group>`, `m:<pattern>`, `g:<group>|m:<pattern>`): the counters it is read from. */
  scope: string;
  kind: 'group' | 'model';
  /** The group as the valves name it (a group's budget, or a model budget for one group's members), else null. */
  group: string | null;
  /** The model pattern (a model budget), else null. */
  pattern: string | null;
  /** Its shared caps, daily first: the spend of everyone it holds (a group's members, exempt roles included). */
  caps: CapUsage[];
  /** A group's cap on each member's own spend (exact decimal strings; null when not set); null when neither is. */
  member: { daily: string | null; monthly: string | null } | null;
  /** A shared cap is reached: everyone it holds is answered 429 until the reset. */
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
  /** Users not blocked whose monthly cap is passed before the month ends at their pace. */
  passing: string[];
  /** Groups' budgets (valve order), then model patterns' budgets: listed whether or not anything was spent. */
  shared: SharedCaps[];
  /** The scope keys of shared budgets blocked now. */
  sharedBlocked: string[];
  /** The scope keys of shared budgets not blocked whose monthly cap is passed before the month ends at their pace. */
  sharedPassing: string[];
}

/**
 * Caps of every user who spent this month or has a cap of their own, read with the spend-limit
 * filter's rules (user over role over default; exempt roles skipped; a user's role and email are
 * the ones on their newest record). A cap set by email applies to the user ids whose newest record
 * carries that email, as the filter (which sees the email) applies it; such a key is not listed
 * again on its own. Spent amounts are one counter read per cap.
 *
 * Beside the users, every shared budget the valves define (sharedBudgets: each group_limits group, each model_limits
 * pattern), whether or not anything was spent: its caps read from the scope's counters (one read per cap), a monthly
 * cap's pace from the scope's day counters of the pace's recent days (one read per day, once per budget).
 */
export async function capsView(options: {
  filters: ReadonlyArray<{ id: string; valves: Record<string, unknown> }>;
  ledger: Ledger;
  now: number;
}): Promise<CapsView> {
  const { ledger, now } = options;
  const filter = options.filters.find((candidate) => isSpendCapValves(candidate.valves));
  const view: CapsView = {
    filter: filter?.id ?? null,
    at: new Date(now).toISOString(),
    users: [],
    blocked: [],
    passing: [],
    shared: [],
    sharedBlocked: [],
    sharedPassing: [],
  };
  if (!filter || !isSpendCapValves(filter.valves)) return view;
  const valves = filter.valves;
  const exempt = Array.isArray(valves.exempt_roles) ? (valves.exempt_roles as string[]) : [];
  const month = monthlyPeriod(now);
  const spenders = await ledger.daily(utcDay(month.from), addDays(utcDay(month.to - 1), 1), 'user');
  // Each user's spend over the pace's recent days, from the same rows (no read more).
  const window = paceWindow(now);
  const recent = new Map<string, Decimal>();
  for (const row of spenders)
    if (window.days.includes(row.day)) recent.set(row.key, (recent.get(row.key) ?? 0n) + row.totals.cost);
  const newest = new Map<string, UsageRecord | undefined>();
  const newestOf = async (user: string) => (await ledger.latest({ userId: user }, 1)).records[0];
  for (const row of spenders) if (!newest.has(row.key)) newest.set(row.key, await newestOf(row.key));
  const emails = new Set([...newest.values()].map((record) => record?.userEmail));
  for (const key of Object.keys(valves.user_limits))
    if (!newest.has(key) && !emails.has(key)) newest.set(key, await newestOf(key));
  for (const [user, record] of [...newest].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const role = record?.userRole ?? null;
    if (role && exempt.includes(role)) continue;
    const email = record?.userEmail ?? null;
    // A key that no record resolves is matched as the filter would match it: as an id, or as an email.
    const match = { id: user, email: record ? (email ?? undefined) : user, ...(role ? { role } : {}) };
    // The user's own caps (a group's or a model's shared cap is not this user's spend).
    const caps = effectiveCaps(valves, match, now).filter((cap) => !cap.scope);
    if (caps.length === 0) continue;
    const usage: CapUsage[] = [];
    for (const cap of caps) {
      const spent = await ledger.spent(user, cap.period.from, cap.period.to);
      usage.push(capUsage(cap, spent, recent.get(user) ?? 0n, now));
    }
    usage.sort((a, b) => (a.period < b.period ? -1 : 1));
    const blocked = usage.some((cap) => cap.reached);
    view.users.push({ user, email, role, caps: usage, blocked });
    if (blocked) view.blocked.push(user);
    else if (usage.some((cap) => cap.pace?.passes)) view.passing.push(user);
  }
  const scopeSpent = ledger.scopeSpent?.bind(ledger);
  if (!scopeSpent) return view; // a ledger that keeps no scope counters: no shared spend to show
  for (const budget of sharedBudgets(valves, now)) {
    const row = await sharedCaps(budget, scopeSpent, window, now);
    view.shared.push(row);
    if (row.blocked) view.sharedBlocked.push(row.scope);
    else if (row.caps.some((cap) => cap.pace?.passes)) view.sharedPassing.push(row.scope);
  }
  return view;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * One shared budget's row: each cap's spent is one read of the scope's day or month counter; a monthly cap's pace
 * reads the scope's day counters of the pace's recent days, one read per day (none before the 8th, when the pace is
 * the month so far), as the alerts do.
 */
async function sharedCaps(
  budget: SharedBudget,
  scopeSpent: (scope: string, from: number, to: number) => Promise<string>,
  window: ReturnType<typeof paceWindow>,
  now: number,
): Promise<SharedCaps> {
  const { scope, target } = budget;
  let recent: Decimal = 0n;
  if (budget.caps.some((cap) => cap.period.kind === 'monthly')) {
    const days = await Promise.all(
      window.days.map((day) => {
        const from = Date.parse(`${day}T00:00:00Z`);
        return scopeSpent(scope, from, from + DAY_MS);
      }),
    );
    for (const spent of days) recent += parseDecimal(spent) ?? 0n;
  }
  const caps: CapUsage[] = [];
  for (const cap of budget.caps)
    caps.push(capUsage(cap, await scopeSpent(scope, cap.period.from, cap.period.to), recent, now));
  caps.sort((a, b) => (a.period < b.period ? -1 : 1));
  const amount = (value: Decimal | null) => (value === null ? null : formatDecimal(value));
  return {
    scope,
    kind: target.kind,
    group: target.group ?? null,
    pattern: target.kind === 'model' ? target.pattern : null,
    caps,
    member: budget.member && { daily: amount(budget.member.daily), monthly: amount(budget.member.monthly) },
    blocked: caps.some((cap) => cap.reached),
  };
}

/**
 * One cap's row: `spent` in its period (exact decimal string), and for a monthly cap the pace from `recentSpend`, the
 * holder's spend over the pace's recent days (paceWindow). The same for any holder of a cap (a user, a group, …).
 */
export function capUsage(cap: EffectiveCap, spent: string, recentSpend: Decimal, now: number): CapUsage {
  const amount = parseDecimal(spent) ?? 0n;
  let pace: CapPace | null = null;
  if (cap.period.kind === 'monthly') {
    const projection = monthPace({ now, spent: amount, recentSpend, limit: cap.limit });
    pace = {
      projected: formatDecimal(projection.projected),
      dailyRate: formatDecimal(projection.dailyRate),
      method: projection.method,
      passes: projection.passes,
      passesOn: projection.passesOn ?? null,
    };
  }
  return {
    period: cap.period.kind,
    spent,
    cap: formatDecimal(cap.limit),
    percent: percentOf(amount, cap.limit),
    resetsAt: new Date(cap.period.to).toISOString(),
    reached: compare(amount, cap.limit) >= 0,
    pace,
  };
}

/** spent ÷ cap in percent, rounded to one decimal (exact integer division first, then one rounding). */
function percentOf(spent: Decimal, cap: Decimal): number {
  return Math.round(Number((spent * 10_000n) / cap) / 10) / 10;
}
