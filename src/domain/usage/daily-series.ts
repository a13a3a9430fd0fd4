import { compare, parseDecimal } from '../pricing/decimal.js';
import type { DailyRow, UsageTotals } from './types.js';
import { daysBetween } from './day-range.js';
import { UsageAccumulator } from './usage-accumulator.js';

/** One day of a series: its totals, and its groups (cost first) when grouping. */
export interface SeriesDay extends UsageTotals {
  day: string;
  groups?: Array<{ key: string } & UsageTotals>;
}

/** A daily time series over [from, to) (UTC days), as `GET /usage/daily` answers it. */
export interface DailySeries {
  from: string;
  to: string;
  currency: 'USD';
  groupBy: 'user' | 'model' | null;
  totals: UsageTotals;
  /** Every day of the range, oldest first, zero-filled. */
  series: SeriesDay[];
  /** Totals per group over the whole range, largest cost first (ties by key). */
  groups?: Array<{ key: string } & UsageTotals>;
}

const byCostThenKey = (a: { key: string; cost: string }, b: { key: string; cost: string }) =>
  compare(parseDecimal(b.cost) ?? 0n, parseDecimal(a.cost) ?? 0n) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/**
 * Build a zero-filled daily series from stored aggregates: `totalRows` are the `all` rows,
 * `groupRows` those of the grouping dimension. Sums stay exact decimals (strings).
 */
export function buildDailySeries(options: {
  from: string;
  to: string;
  groupBy?: 'user' | 'model';
  totalRows: readonly DailyRow[];
  groupRows?: readonly DailyRow[];
}): DailySeries {
  const { from, to, groupBy } = options;
  const overall = new UsageAccumulator();
  const perDay = new Map<string, UsageAccumulator>();
  const perDayGroups = new Map<string, UsageAccumulator>();
  const groups = new UsageAccumulator('user');
  for (const row of options.totalRows) {
    overall.addPartial('', row.totals);
    let day = perDay.get(row.day);
    if (!day) perDay.set(row.day, (day = new UsageAccumulator()));
    day.addPartial('', row.totals);
  }
  for (const row of options.groupRows ?? []) {
    groups.addPartial(row.key, row.totals);
    let day = perDayGroups.get(row.day);
    if (!day) perDayGroups.set(row.day, (day = new UsageAccumulator('user')));
    day.addPartial(row.key, row.totals);
  }
  const empty = new UsageAccumulator().summary().totals;
  const series = daysBetween(from, to).map((day): SeriesDay => {
    const totals = perDay.get(day)?.summary().totals ?? empty;
    if (!groupBy) return { day, ...totals };
    return { day, ...totals, groups: (perDayGroups.get(day)?.summary().groups ?? []).sort(byCostThenKey) };
  });
  return {
    from,
    to,
    currency: 'USD',
    groupBy: groupBy ?? null,
    totals: overall.summary().totals,
    series,
    ...(groupBy ? { groups: (groups.summary().groups ?? []).sort(byCostThenKey) } : {}),
  };
}
