import { joinCost, splitCost } from './cost-parts.js';
import type { PartialTotals, UsageRecord, DailyDimension } from './types.js';
export type { DailyDimension, DailyRow } from './types.js';

/** The UTC day (`YYYY-MM-DD`) of an epoch-ms instant. */
export function utcDay(time: number): string {
  return new Date(time).toISOString().slice(0, 10);
}

/** The partial totals one record adds to every aggregate it belongs to. */
export function recordTotals(record: UsageRecord): PartialTotals {
  const { hi, lo } = splitCost(record.cost);
  return {
    records: 1,
    promptTokens: record.promptTokens,
    completionTokens: record.completionTokens,
    cachedTokens: record.cachedTokens,
    cacheWriteTokens: record.cacheWriteTokens,
    reasoningTokens: record.reasoningTokens,
    totalTokens: record.totalTokens,
    estimated: record.costSource === 'estimated' ? 1 : 0,
    unpriced: record.costSource === 'unpriced' ? 1 : 0,
    cost: joinCost(hi, lo),
  };
}

/**
 * The three daily aggregates a record is added to when it is written (its UTC day's totals,
 * its user's and its priced model's), so a time series reads a few rows per day instead of
 * every record.
 */
export function dailyTargets(record: UsageRecord): Array<{ dimension: DailyDimension; key: string }> {
  return [
    { dimension: 'all', key: '' },
    { dimension: 'user', key: record.userId },
    { dimension: 'model', key: record.pricedAs ?? record.model },
  ];
}

/** The integer counter columns of a daily aggregate, in storage order (cost is split into `hi`/`lo`). */
export const DAILY_COUNTERS = [
  ['records', 'records'],
  ['prompt', 'promptTokens'],
  ['completion', 'completionTokens'],
  ['cached', 'cachedTokens'],
  ['cache_write', 'cacheWriteTokens'],
  ['reasoning', 'reasoningTokens'],
  ['total', 'totalTokens'],
  ['estimated', 'estimated'],
  ['unpriced', 'unpriced'],
] as const satisfies ReadonlyArray<readonly [string, keyof PartialTotals]>;

/** A daily aggregate as stored: the DAILY_COUNTERS columns and the cost as `hi`/`lo` (see splitCost). */
export type CounterColumns = Partial<
  Record<(typeof DAILY_COUNTERS)[number][0] | 'hi' | 'lo', bigint | number | string | null>
>;

/** Stored counter columns back to totals (a missing column is 0): SQLite rows and Redis day-hash fields alike. */
export function totalsFromColumns(columns: CounterColumns): PartialTotals {
  const totals = { cost: joinCost(columns.hi, columns.lo) } as PartialTotals;
  for (const [column, name] of DAILY_COUNTERS) totals[name] = Number(columns[column] ?? 0);
  return totals;
}
