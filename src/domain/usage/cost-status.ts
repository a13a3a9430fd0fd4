import { parseDecimal, type Decimal } from '../pricing/decimal.js';
import { capPlaces, formatCapUsd, formatSpendUsd } from './format-money.js';
import type { UsageRecord } from './types.js';

/** One period's standing: what the user spent in it (recorded) and its cap, when one applies. */
export interface PeriodStanding {
  spent: Decimal;
  cap?: Decimal;
}

/** Dollars as the usage line shows them: `$0` for free, else as spend is shown everywhere (`$0.0123`, `$1.27`). */
export function formatReplyUsd(cost: string): string {
  const value = parseDecimal(cost) ?? 0n;
  return value === 0n ? '$0' : formatSpendUsd(value);
}

function standing(label: string, period: PeriodStanding): string {
  if (period.cap === undefined || period.cap <= 0n) return `${label} ${formatSpendUsd(period.spent)}`;
  return `${label} ${formatSpendUsd(period.spent, capPlaces(period.cap))} of ${formatCapUsd(period.cap)}`;
}

/**
 * The status line after a reply: `this reply $0.0123 · today $0.45 of $2.00 · month $8.10 of $20.00` (a period
 * without a cap shows its spend alone: `today $0.45`). An estimated cost is marked `~`; an unknown price says so.
 */
export function formatCostStatus(
  record: Pick<UsageRecord, 'cost' | 'costSource'>,
  today: PeriodStanding,
  month: PeriodStanding,
): string {
  const reply =
    record.costSource === 'unpriced'
      ? 'this reply: price unknown'
      : `this reply ${record.costSource === 'estimated' ? '~' : ''}${formatReplyUsd(record.cost)}`;
  return [reply, standing('today', today), standing('month', month)].join(' · ');
}
