import type { TokenCounts, UsageRecord } from './types.js';
import { add, formatDecimal, parseDecimal, type Decimal } from '../pricing/decimal.js';

/** How /usage groups records. */
export type UsageGroupBy = 'user' | 'model' | 'day';

/** Totals over a set of records; `cost` is an exact decimal string. */
export interface UsageTotals extends TokenCounts {
  records: number;
  cost: string;
  /** Records whose cost is an estimate or unknown (not from usage × price or the provider). */
  estimated: number;
  unpriced: number;
}

function keyOf(record: UsageRecord, groupBy: UsageGroupBy): string {
  if (groupBy === 'user') return record.userId;
  if (groupBy === 'model') return record.pricedAs ?? record.model;
  return new Date(record.time).toISOString().slice(0, 10);
}

/** Exact totals of records (BigInt decimal sum of costs, never floats). */
export function totalsOf(records: readonly UsageRecord[]): UsageTotals {
  let cost: Decimal = 0n;
  const totals = { records: records.length, promptTokens: 0, completionTokens: 0, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, totalTokens: 0, estimated: 0, unpriced: 0 };
  for (const record of records) {
    totals.promptTokens += record.promptTokens;
    totals.completionTokens += record.completionTokens;
    totals.cachedTokens += record.cachedTokens;
    totals.cacheWriteTokens += record.cacheWriteTokens;
    totals.reasoningTokens += record.reasoningTokens;
    totals.totalTokens += record.totalTokens;
    if (record.costSource === 'estimated') totals.estimated++;
    if (record.costSource === 'unpriced') totals.unpriced++;
    cost = add(cost, parseDecimal(record.cost) ?? 0n);
  }
  return { ...totals, cost: formatDecimal(cost) };
}

/** Group records by user, model (the priced id when known) or UTC day, each with exact totals, sorted by key. */
export function groupUsage(records: readonly UsageRecord[], groupBy: UsageGroupBy): Array<{ key: string } & UsageTotals> {
  const groups = new Map<string, UsageRecord[]>();
  for (const record of records) {
    const key = keyOf(record, groupBy);
    const list = groups.get(key) ?? [];
    list.push(record);
    groups.set(key, list);
  }
  return [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, list]) => ({ key, ...totalsOf(list) }));
}
