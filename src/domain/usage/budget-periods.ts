/** A spend window: [from, to) in epoch ms (UTC). */
export interface BudgetPeriod {
  kind: 'daily' | 'monthly';
  from: number;
  to: number;
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** The UTC day containing `now`. */
export function dailyPeriod(now: number): BudgetPeriod {
  const date = new Date(now);
  const from = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
  return { kind: 'daily', from, to: from + 24 * 60 * 60 * 1000 };
}

/** The UTC calendar month containing `now`. */
export function monthlyPeriod(now: number): BudgetPeriod {
  const date = new Date(now);
  return {
    kind: 'monthly',
    from: Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1),
    to: Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1),
  };
}

/** When a period resets, in words: "on 1 December" (monthly), "at 00:00 UTC" (daily). */
export function resetPhrase(period: BudgetPeriod): string {
  if (period.kind === 'daily') return 'at 00:00 UTC';
  const reset = new Date(period.to);
  return `on 1 ${MONTHS[reset.getUTCMonth()]}`;
}

/** The spend counter a period is kept under: `d:2026-11-05` (UTC day) or `m:2026-11` (UTC month). */
export function periodKey(kind: BudgetPeriod['kind'], time: number): string {
  const iso = new Date(time).toISOString();
  return kind === 'daily' ? `d:${iso.slice(0, 10)}` : `m:${iso.slice(0, 7)}`;
}

/** The counter key when [from, to) is exactly one UTC day or month, else undefined (an arbitrary window). */
export function exactPeriodKey(from: number, to: number): string | undefined {
  if (!Number.isFinite(from) || !Number.isFinite(to)) return undefined;
  const day = dailyPeriod(from);
  if (day.from === from && day.to === to) return periodKey('daily', from);
  const month = monthlyPeriod(from);
  if (month.from === from && month.to === to) return periodKey('monthly', from);
  return undefined;
}
