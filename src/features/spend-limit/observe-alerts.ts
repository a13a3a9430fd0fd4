import type { EffectiveCap } from '../../domain/usage/spend-caps.js';
import { parseDecimal, type Decimal } from '../../domain/pricing/decimal.js';
import type { AlertEvent, CapScope, CapStanding } from '../../domain/usage/spend-alerts.js';
import type { Ledger } from '../../domain/usage/types.js';
import type { Logger } from '../../core/util/logger.js';
import type { PipelineUser } from '../../runtime/host/types.js';
import type { StateStore } from '../../state/types.js';
import type { SpendAlerts } from './spend-alerts.js';

/** The spend-limit valves the alerts read. */
export interface AlertValves {
  alert_webhook_url: string;
  alert_on: readonly AlertEvent[];
  warn_fraction: number;
}

/**
 * Whom a cap holds: a shared cap's scope (a group's budget, a model pattern's: its scope key, spend-scopes.ts, and a
 * readable name), else the user whose cap it is (`user_limits`, a group's member cap, `role_limits`, the defaults).
 */
export function capScope(cap: EffectiveCap, userId: string): CapScope {
  const target = cap.target;
  if (!cap.scope || !target || target.kind === 'user') return { kind: 'user', id: userId };
  if (target.kind === 'group') return { kind: 'group', id: cap.scope, name: target.group };
  const name = target.group === undefined ? target.pattern : `${target.group}: ${target.pattern}`;
  return { kind: 'model', id: cap.scope, name };
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * A scope's spend over whole UTC days, from the ledger's day counters (one read per day): a user's, or a shared scope's
 * (a group's, a model pattern's) where the ledger counts scopes; undefined where it cannot tell.
 */
export function ledgerRecentSpend(ledger: Ledger | undefined) {
  return async (scope: CapScope, days: readonly string[]): Promise<Decimal | undefined> => {
    if (!ledger) return undefined;
    const scopeSpent = ledger.scopeSpent?.bind(ledger);
    if (scope.kind !== 'user' && !scopeSpent) return undefined;
    const amounts = await Promise.all(
      days.map((day) => {
        const from = Date.parse(`${day}T00:00:00Z`);
        return scope.kind === 'user'
          ? ledger.spent(scope.id, from, from + DAY_MS)
          : scopeSpent!(scope.id, from, from + DAY_MS);
      }),
    );
    return amounts.reduce<Decimal>((sum, amount) => sum + (parseDecimal(amount) ?? 0n), 0n);
  };
}

/**
 * Hand an inlet's outcome to the alerts (returns at once): each cap's recorded spend and spend in use, and the cap
 * that refused the request, if one did.
 */
export function observeAlerts(
  alerts: SpendAlerts,
  args: {
    valves: AlertValves;
    user: PipelineUser & { id: string };
    caps: readonly EffectiveCap[];
    spent: readonly string[];
    inUse: readonly Decimal[];
    blockedBy: number | undefined;
    at: number;
    state: Pick<StateStore, 'compareAndSet'>;
    logger: Logger;
    ledger: Ledger | undefined;
  },
): void {
  const { valves, user } = args;
  if (!valves.alert_webhook_url) return;
  const standings: CapStanding[] = args.caps.map((cap, index) => ({
    scope: capScope(cap, user.id),
    period: cap.period,
    limit: cap.limit,
    spent: parseDecimal(args.spent[index]) ?? 0n,
    inUse: args.inUse[index] ?? 0n,
    refused: args.blockedBy === index,
    warnFraction: valves.warn_fraction,
  }));
  alerts.observe({
    url: valves.alert_webhook_url,
    on: valves.alert_on,
    user: { id: user.id, ...(user.email ? { email: user.email } : {}), ...(user.name ? { name: user.name } : {}) },
    standings,
    at: args.at,
    state: args.state,
    logger: args.logger,
    recentSpend: ledgerRecentSpend(args.ledger),
  });
}
