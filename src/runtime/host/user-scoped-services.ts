/**
 * The host services one call gets: the ledger and the spend holds write money for the call's own user only. A
 * record a hook (or a pipe) writes must name that user (the id Open WebUI sent, `anonymous` for a call without one);
 * a hold is reserved or released for that user only. Anything else is refused with a LedgerScopeError and nothing is
 * written. Lifecycle hooks (`onStartup`, …) and calls of an isolated filter that arrive after their hook ended have
 * no user: they write no money at all. Reads (`spent`, `list`, `summarize`, …) are not scoped.
 */
import type { Ledger, UsageRecord } from '../../domain/usage/types.js';
import type { HoldRequest, SpendHolds } from '../../domain/usage/spend-reservations.js';
import type { HostServices, PipelineUser } from './types.js';

/** A write of money for another user than the call's own (or from a call without a user). */
export class LedgerScopeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LedgerScopeError';
  }
}

/** The user id a call's records carry: what buildUsageRecord writes (`anonymous` when Open WebUI sent none). */
export function ownerOf(user: PipelineUser | null | undefined): string {
  const id = user?.id;
  return typeof id === 'string' && id ? id : 'anonymous';
}

/** Who may write: the call's user id, or none (lifecycle hooks, calls after their hook ended). */
type Owner = { userId: string } | 'nobody';

function refuse(owner: Owner, what: string, userId: unknown): never {
  const named = typeof userId === 'string' ? `'${userId}'` : 'no user';
  throw new LedgerScopeError(
    owner === 'nobody'
      ? `${what} for ${named} refused: only a hook serving a request may write usage, for that request's user`
      : `${what} for ${named} refused: a hook writes usage only for its own user ('${owner.userId}')`,
  );
}

function mayWrite(owner: Owner, userId: unknown): boolean {
  return owner !== 'nobody' && userId === owner.userId;
}

/** The ledger with `record` limited to the owner's records; every other method is the host's own. */
function scopedLedger(ledger: Ledger, owner: Owner): Ledger {
  return {
    record: async (entry: UsageRecord) => {
      const copy = { ...entry }; // read once: what is written is what was checked (a getter cannot change it)
      if (!mayWrite(owner, copy.userId)) refuse(owner, 'A usage record', copy.userId);
      return ledger.record(copy);
    },
    list: (query) => ledger.list(query),
    spent: (userId, from, to) => ledger.spent(userId, from, to),
    ...(ledger.scopeSpent
      ? { scopeSpent: (scope: string, from: number, to: number) => ledger.scopeSpent!(scope, from, to) }
      : {}),
    summarize: (query, groupBy) => ledger.summarize(query, groupBy),
    latest: (query, limit, before) => ledger.latest(query, limit, before),
    daily: (fromDay, toDay, dimension) => ledger.daily(fromDay, toDay, dimension),
    scan: (query, visit) => ledger.scan(query, visit),
  };
}

/** The spend holds limited to the owner's holds. */
function scopedHolds(holds: SpendHolds, owner: Owner): SpendHolds {
  return {
    reserve: async (request: HoldRequest) => {
      const copy = { ...request }; // read once, as for records
      if (!mayWrite(owner, copy.userId)) refuse(owner, 'A spend hold', copy.userId);
      return holds.reserve(copy);
    },
    release: async (userId, ids, options) => {
      if (!mayWrite(owner, userId)) refuse(owner, 'Releasing spend holds', userId);
      return holds.release(userId, ids, options);
    },
  };
}

function scoped(services: HostServices, owner: Owner): HostServices {
  return {
    ...services,
    ...(services.ledger ? { ledger: scopedLedger(services.ledger, owner) } : {}),
    ...(services.spend ? { spend: scopedHolds(services.spend, owner) } : {}),
  };
}

/** The services of one hook or pipe call made for `user`: money is written for `ownerOf(user)` only. */
export function servicesForUser(services: HostServices, user: PipelineUser | null | undefined): HostServices {
  return scoped(services, { userId: ownerOf(user) });
}

/** The services of a call with no user (lifecycle hooks): no usage record, no hold. */
export function servicesWithoutUser(services: HostServices): HostServices {
  return scoped(services, 'nobody');
}
