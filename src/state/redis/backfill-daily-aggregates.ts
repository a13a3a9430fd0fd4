import { utcDay } from '../../domain/usage/daily-usage.js';
import { backfillOnce, type BackfillOptions } from './backfill-once.js';
import { dailyFields } from './daily-fields.js';

/**
 * Give the records an older Eunoe wrote (before daily aggregates existed) their day-hash
 * aggregates, once per deployment prefix (see backfillOnce).
 * @returns how many records were added, or undefined when done already or another replica is at it
 */
export function backfillDailyAggregates(options: BackfillOptions): Promise<number | undefined> {
  const { layout } = options;
  return backfillOnce(options, {
    lease: 'ledger-daily-backfill',
    fromKey: layout.dailyFrom,
    doneKey: layout.dailyBackfilled,
    what: 'daily usage aggregates',
    sums(record, add) {
      const fields = dailyFields(record);
      const hash = layout.day(utcDay(record.time));
      for (let index = 0; index + 1 < fields.length; index += 2) add(hash, fields[index]!, BigInt(fields[index + 1]!));
    },
  });
}
