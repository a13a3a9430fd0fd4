/** A spend window: [from, to) in epoch ms (UTC). */
export interface BudgetPeriod {
  kind: 'daily' | 'monthly';
  from: number;
  to: number;
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** The UTC day containing `now`. */
export function dailyPeriod(now: number): BudgetPeriod {
  const date = new Date(now);
  const from = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
  return { kind: 'daily', from, to: from + 24 * 60 * 60 * 1000 };
}

/** The UTC calendar month containing `now`. */
export function monthlyPeriod(now: number): BudgetPeriod {
  const date = new Date(now);
  return { kind: 'monthly', from: Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1), to: Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1) };
}

/** When a period resets, in words: "on 1 December" (monthly), "at 00:00 UTC" (daily). */
export function resetPhrase(period: BudgetPeriod): string {
  if (period.kind === 'daily') return 'at 00:00 UTC';
  const reset = new Date(period.to);
  return `on 1 ${MONTHS[reset.getUTCMonth()]}`;
}
