import type { TokenCounts } from './types.js';

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
