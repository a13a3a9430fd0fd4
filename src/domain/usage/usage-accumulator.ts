import { formatDecimal } from '../pricing/decimal.js';
import { recordTotals } from './daily-usage.js';
import type { UsageGroupBy, UsageTotals, UsageRecord, UsageSummary, PartialTotals } from './types.js';
export type { PartialTotals } from './types.js';

/** Totals of no record. */
export const emptyTotals = (): PartialTotals => ({
  records: 0,
  promptTokens: 0,
  completionTokens: 0,
  cachedTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
  totalTokens: 0,
  estimated: 0,
  unpriced: 0,
  cost: 0n,
});

/** The group key of a record: its user, its priced model id (else its model), or its UTC day. */
export function groupKeyOf(record: UsageRecord, groupBy: UsageGroupBy): string {
  if (groupBy === 'user') return record.userId;
  if (groupBy === 'model') return record.pricedAs ?? record.model;
  return new Date(record.time).toISOString().slice(0, 10);
}

/** Adds up records, or partial totals per group from a store's own aggregation, exactly. */
export class UsageAccumulator {
  private readonly all = emptyTotals();
  private readonly groups = new Map<string, PartialTotals>();

  constructor(private readonly groupBy?: UsageGroupBy) {}

  /** Add one record. */
  addRecord(record: UsageRecord): void {
    this.addPartial(this.groupBy ? groupKeyOf(record, this.groupBy) : '', recordTotals(record));
  }

  /** Add already-summed totals of one group. */
  addPartial(key: string, part: PartialTotals): void {
    addTotals(this.all, part);
    if (!this.groupBy) return;
    let group = this.groups.get(key);
    if (!group) this.groups.set(key, (group = emptyTotals()));
    addTotals(group, part);
  }

  /** Totals, and groups sorted by key when grouping. */
  summary(): UsageSummary {
    const totals = finish(this.all);
    if (!this.groupBy) return { totals };
    const groups = [...this.groups.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, part]) => ({ key, ...finish(part) }));
    return { totals, groups };
  }
}

/** Add `part` into `target`, field by field (cost exact). */
export function addTotals(target: PartialTotals, part: PartialTotals): void {
  target.records += part.records;
  target.promptTokens += part.promptTokens;
  target.completionTokens += part.completionTokens;
  target.cachedTokens += part.cachedTokens;
  target.cacheWriteTokens += part.cacheWriteTokens;
  target.reasoningTokens += part.reasoningTokens;
  target.totalTokens += part.totalTokens;
  target.estimated += part.estimated;
  target.unpriced += part.unpriced;
  target.cost += part.cost;
}

function finish(part: PartialTotals): UsageTotals {
  const { cost, ...counts } = part;
  return { ...counts, cost: formatDecimal(cost) };
}
