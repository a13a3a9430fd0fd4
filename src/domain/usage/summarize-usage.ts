export type { UsageGroupBy, UsageTotals } from './types.js';
