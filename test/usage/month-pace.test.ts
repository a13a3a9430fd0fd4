import { describe, expect, it } from 'vitest';
import { monthPace, paceWindow } from '../../src/domain/usage/month-pace.js';
import { decimalOf, formatDecimal } from '../../src/domain/pricing/decimal.js';

/**
 * The month's pace, from the worked examples of docs/accounting.md ("The month's pace"): the recent rate for a user
 * who starts mid-month, the month so far before the 8th, the first day, and the pass date.
 */

const at = (month: number, day: number, hour = 0) => Date.UTC(2026, month - 1, day, hour);
const usd = (value: string) => decimalOf(value);
const text = (value: bigint) => formatDecimal(value);

describe('paceWindow', () => {
  it('takes the last 7 full days once the month has them, today left out', () => {
    const window = paceWindow(at(11, 8, 15));
    expect(window.method).toBe('recent');
    expect(window.days).toEqual([1, 2, 3, 4, 5, 6, 7].map((day) => `2026-11-0${day}`));
    expect(paceWindow(at(11, 20, 12)).days).toEqual(
      ['13', '14', '15', '16', '17', '18', '19'].map((d) => `2026-11-${d}`),
    );
  });

  it('takes the month so far while it has fewer than 7 full days (the 7th has 6)', () => {
    expect(paceWindow(at(11, 7, 23)).method).toBe('month-so-far');
    expect(paceWindow(at(11, 7, 23)).days).toEqual([]);
    expect(paceWindow(at(12, 1, 0))).toMatchObject({
      method: 'month-so-far',
      month: { from: at(12, 1), to: at(13, 1) },
    });
  });
});

describe('monthPace (docs/accounting.md, "The month\'s pace")', () => {
  it('a user who starts on 13 November at $2 a day: $36.00 projected on the 20th at noon, a $30 cap passed on 28 November', () => {
    // Docs example 1: $2 on each of 13–19 November ($14) and $1 so far on the 20th ($15 in all); 10.5 days left.
    const pace = monthPace({ now: at(11, 20, 12), spent: usd('15'), recentSpend: usd('14'), limit: usd('30') });
    expect(pace.method).toBe('recent');
    expect(text(pace.dailyRate)).toBe('2');
    expect(pace.daysLeft).toBe(10.5);
    expect(text(pace.projected)).toBe('36');
    // $15 of room at $2 a day: 7.5 days after the 20th at noon.
    expect(pace.passes).toBe(true);
    expect(pace.passesAt).toBe(at(11, 28, 0));
    expect(pace.passesOn).toBe('2026-11-28');
  });

  it('before the 8th: the month so far; on 4 November at 00:00 with $3 spent, $1 a day, $30 projected', () => {
    // Docs example 2: three full days elapsed, 27 left.
    const pace = monthPace({ now: at(11, 4), spent: usd('3'), limit: usd('29') });
    expect(pace.method).toBe('month-so-far');
    expect(text(pace.dailyRate)).toBe('1');
    expect(text(pace.projected)).toBe('30');
    expect(pace.passesOn).toBe('2026-11-30'); // $26 of room at $1 a day
    // Reached exactly at the reset is not passed: the new month starts from zero.
    expect(monthPace({ now: at(11, 4), spent: usd('3'), limit: usd('30') }).passes).toBe(false);
    expect(monthPace({ now: at(11, 4), spent: usd('3'), limit: usd('31') })).toMatchObject({ passes: false });
  });

  it('the first day counts as at least one day: $0.50 by 06:00 on 1 December projects $15.875, not $62', () => {
    // Docs example 3: 0.25 days elapsed, counted as 1; 30.75 days left.
    const pace = monthPace({ now: at(12, 1, 6), spent: usd('0.5') });
    expect(text(pace.dailyRate)).toBe('0.5');
    expect(text(pace.projected)).toBe('15.875');
    expect(pace.passes).toBe(false);
    expect(pace.passesAt).toBeUndefined();
  });

  it('a cap already reached is passed now; no spend projects no spend', () => {
    const reached = monthPace({ now: at(11, 20, 12), spent: usd('30'), recentSpend: usd('0'), limit: usd('30') });
    expect(reached).toMatchObject({ passes: true, passesAt: at(11, 20, 12), passesOn: '2026-11-20' });
    const idle = monthPace({ now: at(11, 20, 12), spent: usd('0'), recentSpend: usd('0'), limit: usd('30') });
    expect(text(idle.projected)).toBe('0');
    expect(idle.passes).toBe(false);
  });

  it('exact decimals: $0.10 × 3 a day over 7 days projects to the nano-dollar', () => {
    // $0.30 a day over 13–19 November ($2.10), $0.30 spent so far in all before that: 10.5 days × $0.30 = $3.15.
    const pace = monthPace({ now: at(11, 20, 12), spent: usd('2.4'), recentSpend: usd('2.1') });
    expect(text(pace.dailyRate)).toBe('0.3');
    expect(text(pace.projected)).toBe('5.55');
    // A rate that does not divide evenly is truncated to the nano-dollar, never shown as a float.
    const thirds = monthPace({ now: at(11, 20, 12), spent: usd('1'), recentSpend: usd('1') });
    expect(text(thirds.dailyRate)).toBe('0.142857142');
    expect(text(thirds.projected)).toBe('2.5');
  });
});
