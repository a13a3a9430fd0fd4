import { compare, formatDecimal, type Decimal } from '../pricing/decimal.js';
import { periodKey, resetPhrase, type BudgetPeriod } from './budget-periods.js';
import { capPlaces, formatCapUsd, formatSpendUsd } from './format-money.js';
import type { MonthPace } from './month-pace.js';
import { capShare } from './spend-caps.js';

/**
 * Spend alerts: what the spend-limit filter posts to the admin's webhook when a cap's standing crosses a line. Each
 * event fires once per crossing per period (see alertKey); the delivery lives in src/features/spend-limit/.
 * Generic over caps: a cap is a period, a limit and the scope it holds (a user, a group, a model, …).
 */

/** The lines a cap's standing crosses, in the order they come. */
export const ALERT_EVENTS = ['warn_threshold', 'projected_over_cap', 'cap_reached'] as const;
export type AlertEvent = (typeof ALERT_EVENTS)[number];

/** Whom a cap holds: `kind` `user` (id = user id), or another scope's kind and id (a group, a model pattern). */
export interface CapScope {
  kind: string;
  id: string;
  /** A readable name when the id is opaque (a group's name). */
  name?: string;
}

/** Where one cap stands after a request's inlet. */
export interface CapStanding {
  scope: CapScope;
  period: BudgetPeriod;
  limit: Decimal;
  /** Recorded spend of the period. */
  spent: Decimal;
  /** Recorded spend + requests in flight (this one included when admitted). */
  inUse: Decimal;
  /** This request was refused by this cap. */
  refused: boolean;
  /** The soft threshold as a share of the limit (`warn_fraction`; 0 = none). */
  warnFraction: number;
}

/** The user whose request crossed the line. */
export interface AlertUser {
  id: string;
  email?: string;
  name?: string;
}

/**
 * The events a standing calls for now, before the pace (its `projected_over_cap` needs the month's pace: see
 * paceCalls): `cap_reached` when the cap refused the request (it has no room for it) or is all in use; `warn_threshold`
 * when the share in use is at least the soft threshold (where the near-cap status line starts).
 */
export function standingEvents(standing: CapStanding): AlertEvent[] {
  const events: AlertEvent[] = [];
  const reached = standing.refused || compare(standing.inUse, standing.limit) >= 0;
  if (standing.warnFraction > 0 && capShare(standing.inUse, standing.limit) >= standing.warnFraction)
    events.push('warn_threshold');
  if (reached) events.push('cap_reached');
  return events;
}

/** A monthly cap not yet reached may cross its projection: the pace is worth reading. */
export function paceCalls(standing: CapStanding): boolean {
  return standing.period.kind === 'monthly' && !standing.refused && compare(standing.inUse, standing.limit) < 0;
}

/**
 * The dedupe key of one crossing: (event, scope, cap, period). The cap is its period kind and limit, so a cap the
 * admin changes mid-period may alert again; the period key (`m:2026-11`, `d:2026-11-05`) starts over each period.
 */
export function alertKey(event: AlertEvent, standing: Pick<CapStanding, 'scope' | 'period' | 'limit'>): string {
  const { scope, period, limit } = standing;
  return `alert:${event}:${scope.kind}:${scope.id}:${period.kind}:${formatDecimal(limit)}:${periodKey(period.kind, period.from)}`;
}

/** The JSON body of a webhook POST (docs/accounting.md, "Alerts"): stable field names, decimals as strings. */
export interface AlertPayload {
  event: AlertEvent;
  /** When the line was crossed (ISO, UTC). */
  time: string;
  user: { id: string; email: string | null; name: string | null };
  scope: { kind: string; id: string; name: string | null };
  cap: { period: 'daily' | 'monthly'; period_key: string; limit_usd: string; resets_at: string };
  spent_usd: string;
  in_use_usd: string;
  warn_fraction: number;
  /** Month-end projection (monthly caps), else null. */
  projected_usd: string | null;
  /** The UTC day the cap is passed at this pace (monthly caps), else null. */
  passes_on: string | null;
  /** One line for a person (Slack's and Mattermost's incoming webhooks show `text`). */
  text: string;
  source: 'eunoe';
}

/** The payload of `event` for `standing`, crossed by `user`'s request at `at`; `pace` for monthly caps. */
export function alertPayload(args: {
  event: AlertEvent;
  standing: CapStanding;
  user: AlertUser;
  at: number;
  pace?: MonthPace;
}): AlertPayload {
  const { event, standing, user, pace } = args;
  const { scope, period, limit } = standing;
  return {
    event,
    time: new Date(args.at).toISOString(),
    user: { id: user.id, email: user.email ?? null, name: user.name ?? null },
    scope: { kind: scope.kind, id: scope.id, name: scope.name ?? null },
    cap: {
      period: period.kind,
      period_key: periodKey(period.kind, period.from),
      limit_usd: formatDecimal(limit),
      resets_at: new Date(period.to).toISOString(),
    },
    spent_usd: formatDecimal(standing.spent),
    in_use_usd: formatDecimal(standing.inUse),
    warn_fraction: standing.warnFraction,
    projected_usd: pace ? formatDecimal(pace.projected) : null,
    passes_on: pace?.passesOn ?? null,
    text: alertText(event, standing, user, pace),
    source: 'eunoe',
  };
}

/** "ann@example.com: monthly cap of $30.00 (user u1) 82 % in use ($24.60); resets on 1 December." and the like. */
function alertText(event: AlertEvent, standing: CapStanding, user: AlertUser, pace?: MonthPace): string {
  const { scope, period, limit } = standing;
  const who = user.email ?? user.name ?? user.id;
  const places = capPlaces(limit);
  const holder = scope.kind === 'user' ? '' : ` (${scope.kind} ${scope.name ?? scope.id})`;
  const cap = `${period.kind} cap of ${formatCapUsd(limit)}${holder}`;
  const used = formatSpendUsd(standing.inUse, places);
  const resets = `resets ${resetPhrase(period)}`;
  if (event === 'cap_reached') return `${who}: ${cap} reached, requests are refused (${used} in use); ${resets}.`;
  if (event === 'warn_threshold')
    return `${who}: ${cap} ${Math.floor(capShare(standing.inUse, limit) * 100)} % in use (${used}); ${resets}.`;
  const projected = pace ? formatSpendUsd(pace.projected, places) : '?';
  return `${who}: ${cap} will be passed on ${pace?.passesOn ?? '?'} at this pace (${projected} projected by month end, ${formatSpendUsd(standing.spent, places)} spent).`;
}
