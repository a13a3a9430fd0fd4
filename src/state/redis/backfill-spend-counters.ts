import { periodKey } from '../../domain/usage/budget-periods.js';
import { splitCost } from '../../domain/usage/cost-parts.js';
import { backfillOnce, type BackfillOptions } from './backfill-once.js';

/**
 * Give the records an older Eunoe wrote (before spend counters existed) their per-user day and
 * month counters, once per deployment prefix (see backfillOnce).
 * @returns how many records were counted, or undefined when done already or another replica is at it
 */
export function backfillSpendCounters(options: BackfillOptions): Promise<number | undefined> {
  const { layout } = options;
  return backfillOnce(options, {
    lease: 'ledger-spend-backfill',
    fromKey: layout.countedFrom,
    doneKey: layout.backfilled,
    what: 'spend counters',
    sums(record, add) {
      const { hi, lo } = splitCost(record.cost);
      for (const period of [periodKey('daily', record.time), periodKey('monthly', record.time)]) {
        add(layout.spend(record.userId), `${period}:hi`, hi);
        add(layout.spend(record.userId), `${period}:lo`, lo);
      }
    },
  });
}
