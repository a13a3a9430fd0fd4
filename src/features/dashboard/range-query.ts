import { z } from 'zod';
import { ValidationError } from '../../core/errors/index.js';
import { addDays, dayStart } from '../../domain/usage/day-range.js';
import { utcDay } from '../../domain/usage/daily-usage.js';
import { parsedOr400 } from '../../runtime/http/parsed.js';

/** Longest range a daily query may cover. */
export const MAX_RANGE_DAYS = 400;

/** A range of whole UTC days: `from` inclusive, `to` exclusive (`YYYY-MM-DD`). */
export interface DayRange {
  from: string;
  to: string;
}

const day = z.string().transform((value, context) => {
  // A day, or an instant that is exactly 00:00 UTC (so /usage-style ISO times work too).
  const time = /^\d{4}-\d{2}-\d{2}$/.test(value) ? dayStart(value) : Date.parse(value);
  if (!Number.isFinite(time) || utcDay(time) !== new Date(time).toISOString().slice(0, 10)) {
    context.addIssue({ code: 'custom', message: `not a day (YYYY-MM-DD): ${value}` });
    return z.NEVER;
  }
  if (time % 86_400_000 !== 0) {
    context.addIssue({ code: 'custom', message: `not a UTC day boundary (00:00Z): ${value}` });
    return z.NEVER;
  }
  return utcDay(time);
});

const rangeSchema = z.object({
  from: day.optional(),
  to: day.optional(),
  days: z.coerce.number().int().min(1).max(MAX_RANGE_DAYS).optional(),
  month: z
    .string()
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'not a month (YYYY-MM)')
    .optional(),
});

/**
 * The day range of a dashboard query, in UTC: `from`/`to` (days, `to` exclusive), or
 * `days=N` (the last N days, today included), or `month=YYYY-MM`; default this month.
 * ValidationError (400) on a bad day, an inverted range or more than MAX_RANGE_DAYS days.
 */
export function parseDayRange(query: Record<string, unknown>, now: number): DayRange {
  const { from, to, days, month } = parsedOr400(
    rangeSchema,
    { from: query.from, to: query.to, days: query.days, month: query.month },
    { prefix: 'Invalid range' },
  );
  const today = utcDay(now);
  let range: DayRange;
  if (days !== undefined) range = { from: addDays(today, 1 - days), to: addDays(today, 1) };
  else if (month !== undefined) range = monthRange(`${month}-01`);
  else if (from !== undefined || to !== undefined) {
    const end = to ?? addDays(today, 1);
    range = { from: from ?? monthRange(addDays(end, -1)).from, to: end };
  } else range = monthRange(today);
  if (range.from > range.to) throw new ValidationError('Invalid range: from is after to');
  if ((dayStart(range.to) - dayStart(range.from)) / 86_400_000 > MAX_RANGE_DAYS)
    throw new ValidationError(`Invalid range: more than ${MAX_RANGE_DAYS} days`);
  return range;
}

/** The calendar month (UTC) containing `day`. */
function monthRange(day: string): DayRange {
  const [year, month] = day.split('-').map(Number) as [number, number];
  return { from: `${day.slice(0, 7)}-01`, to: utcDay(Date.UTC(year, month, 1)) };
}
