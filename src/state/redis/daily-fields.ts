import {
  DAILY_COUNTERS,
  dailyTargets,
  recordTotals,
  totalsFromColumns,
  type DailyDimension,
  type DailyRow,
} from '../../domain/usage/daily-usage.js';
import { splitCost } from '../../domain/usage/cost-parts.js';
import type { UsageRecord } from '../../domain/usage/types.js';

const SEPARATOR = '|';

/**
 * The (field, amount) pairs a record adds to its day hash, flat for the record script:
 * `<dimension>|<counter>|<key>` (the key last, so it may contain the separator), zero amounts left out.
 */
export function dailyFields(record: UsageRecord): string[] {
  const totals = recordTotals(record);
  const { hi, lo } = splitCost(record.cost);
  const pairs: string[] = [];
  for (const { dimension, key } of dailyTargets(record)) {
    const field = (counter: string) => `${dimension}${SEPARATOR}${counter}${SEPARATOR}${key}`;
    for (const [counter, name] of DAILY_COUNTERS) {
      const amount = totals[name];
      if (amount !== 0) pairs.push(field(counter), String(amount));
    }
    if (hi !== 0n) pairs.push(field('hi'), String(hi));
    if (lo !== 0n) pairs.push(field('lo'), String(lo));
  }
  return pairs;
}

/** The rows of one dimension in a day hash (HGETALL result). */
export function parseDayHash(day: string, hash: Record<string, string>, dimension: DailyDimension): DailyRow[] {
  const rows = new Map<string, Record<string, string>>();
  for (const [field, value] of Object.entries(hash)) {
    const first = field.indexOf(SEPARATOR);
    const second = field.indexOf(SEPARATOR, first + 1);
    if (first < 0 || second < 0 || field.slice(0, first) !== dimension) continue;
    const key = field.slice(second + 1);
    let row = rows.get(key);
    if (!row) rows.set(key, (row = {}));
    row[field.slice(first + 1, second)] = value;
  }
  return [...rows.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, counters]) => ({ day, dimension, key, totals: totalsFromColumns(counters) }));
}
