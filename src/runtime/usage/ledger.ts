import type { StateStore } from '../../state/types.js';
import type { Ledger, UsageRecord } from '../../domain/usage/types.js';
import { exactPeriodKey } from '../../domain/usage/budget-periods.js';

/**
 * The spend ledger on a StateStore's usage store: `record` is idempotent by message id and
 * updates the user's day and month spend counters in the same atomic write, so `spent()` for
 * a UTC day or month reads one counter whatever the number of records. Other windows, and
 * /usage, are aggregated in the store in bounded chunks.
 */
export function createLedger(store: StateStore): Ledger {
  const usage = store.usage;
  if (!usage) throw new TypeError(`The ${store.backend} state store has no usage ledger`);
  return {
    record: (entry) => usage.record(entry),
    async list(query) {
      const records: UsageRecord[] = [];
      await usage.scan(query, (chunk) => void records.push(...chunk));
      return records;
    },
    async spent(userId, from, to) {
      const key = exactPeriodKey(from, to);
      if (key) return usage.spent(userId, key);
      return (await usage.summarize({ userId, from, to })).totals.cost;
    },
    async scopeSpent(scope, from, to) {
      const key = exactPeriodKey(from, to);
      if (!key) throw new RangeError('scope spend is kept per UTC day and month only');
      return usage.scopeSpent(scope, key);
    },
    summarize: (query, groupBy) => usage.summarize(query, groupBy),
    latest: (query, limit, before) => usage.latest(query, limit, before),
    daily: (fromDay, toDay, dimension) => usage.daily(fromDay, toDay, dimension),
    scan: (query, visit) => usage.scan(query, visit),
  };
}
