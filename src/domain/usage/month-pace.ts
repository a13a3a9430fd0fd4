import { compare, type Decimal } from '../pricing/decimal.js';
import { monthlyPeriod } from './budget-periods.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Full days the recent rate is taken over, when the month has that many before today. */
export const PACE_DAYS = 7;
/** Projections are rounded to whole nano-dollars (1e-9 USD; a Decimal unit is 1e-18). */
const NANO = 10n ** 9n;

/**
 * How the daily rate is taken:
 * - `recent`: the spend of the last 7 full UTC days of the month (today excluded), ÷ 7;
 * - `month-so-far`: fewer than 7 full days of the month have passed: the month's spend so far ÷ the time elapsed
 *   in days, counted as at least one day (so the first hours of the 1st do not stretch a few cents into dollars).
 */
export type PaceMethod = 'recent' | 'month-so-far';

/** What to read for a projection at `now`: the month, the method, and the full days whose spend `recent` needs. */
export interface PaceWindow {
  month: { from: number; to: number };
  method: PaceMethod;
  /** UTC days (`YYYY-MM-DD`) the rate is taken over, oldest first (empty for `month-so-far`). */
  days: string[];
}

/** The month's pace of one scope (a user, a group, …) against one monthly cap. */
export interface MonthPace {
  method: PaceMethod;
  /** USD per day the rest of the month is projected at. */
  dailyRate: Decimal;
  /** Spend so far + dailyRate × the days left (today's rest included), to the nano-dollar. */
  projected: Decimal;
  /** Days (fractional) from `now` to the month's end. */
  daysLeft: number;
  /** The cap is reached before the month resets at this pace (spent ≥ cap already, or reached at `passesAt`). */
  passes: boolean;
  /** The epoch ms the cap is reached at this pace (`now` when already reached); absent when `passes` is false. */
  passesAt?: number;
  /** `passesAt` as its UTC day (`YYYY-MM-DD`). */
  passesOn?: string;
}

/** The UTC day (`YYYY-MM-DD`) of an epoch ms. */
const dayOf = (time: number): string => new Date(time).toISOString().slice(0, 10);

/** Which method applies at `now`, and the full days of the month it reads. */
export function paceWindow(now: number): PaceWindow {
  const month = monthlyPeriod(now);
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const fullDays = Math.round((today - month.from) / DAY_MS);
  if (fullDays < PACE_DAYS) return { month, method: 'month-so-far', days: [] };
  const days = Array.from({ length: PACE_DAYS }, (_, index) => dayOf(today - (PACE_DAYS - index) * DAY_MS));
  return { month, method: 'recent', days };
}

/**
 * The month-end projection of one scope's spend at `now` (see PaceMethod): `spent` is the recorded spend of the
 * month so far; `recentSpend` the summed spend of the window's `days` (needed only for `recent`; absent = 0).
 * Exact decimals throughout; the projection and the rate are truncated to the nano-dollar, the pass time rounded up
 * to the millisecond. With a `limit`, says whether and when the cap is passed before the month resets.
 */
export function monthPace(input: { now: number; spent: Decimal; recentSpend?: Decimal; limit?: Decimal }): MonthPace {
  const { now, spent, limit } = input;
  const window = paceWindow(now);
  const left = BigInt(Math.max(0, window.month.to - now));
  // The rate as USD per millisecond, kept as a fraction (numerator / perMs) so nothing is rounded before the end.
  let numerator: Decimal;
  let perMs: bigint;
  if (window.method === 'recent') {
    numerator = input.recentSpend ?? 0n;
    perMs = BigInt(PACE_DAYS * DAY_MS);
  } else {
    numerator = spent;
    perMs = BigInt(Math.max(DAY_MS, now - window.month.from));
  }
  const toNano = (value: Decimal) => (value / NANO) * NANO;
  const projected = toNano(spent + (numerator * left) / perMs);
  const pace: MonthPace = {
    method: window.method,
    dailyRate: toNano((numerator * BigInt(DAY_MS)) / perMs),
    projected,
    daysLeft: Number(left) / DAY_MS,
    passes: false,
  };
  if (limit === undefined) return pace;
  if (compare(spent, limit) >= 0) return { ...pace, passes: true, passesAt: now, passesOn: dayOf(now) };
  if (numerator <= 0n) return pace;
  // ms until the cap at this rate: (limit − spent) ÷ (numerator / perMs), rounded up.
  const room = (limit - spent) * perMs;
  const until = room / numerator + (room % numerator === 0n ? 0n : 1n);
  if (until >= left) return pace; // reached at the reset or later: the new month starts from zero
  const passesAt = now + Number(until);
  return { ...pace, passes: true, passesAt, passesOn: dayOf(passesAt) };
}
