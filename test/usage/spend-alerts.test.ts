import { describe, expect, it } from 'vitest';
import { decimalOf } from '../../src/domain/pricing/decimal.js';
import { dailyPeriod, monthlyPeriod } from '../../src/domain/usage/budget-periods.js';
import {
  alertKey,
  alertPayload,
  paceCalls,
  standingEvents,
  type CapStanding,
} from '../../src/domain/usage/spend-alerts.js';

/** Which lines a cap's standing crosses, and the dedupe key of each (docs/accounting.md, "Alerts"). */

const NOON_20 = Date.UTC(2026, 10, 20, 12);
const standing = (overrides: Partial<CapStanding> = {}): CapStanding => ({
  scope: { kind: 'user', id: 'u-ann' },
  period: monthlyPeriod(NOON_20),
  limit: decimalOf('30'),
  spent: decimalOf('15'),
  inUse: decimalOf('15'),
  refused: false,
  warnFraction: 0.8,
  ...overrides,
});

describe('standingEvents', () => {
  it('nothing below warn_fraction; warn_threshold from it; cap_reached when all in use or refused', () => {
    expect(standingEvents(standing({ inUse: decimalOf('23.99') }))).toEqual([]);
    expect(standingEvents(standing({ inUse: decimalOf('24') }))).toEqual(['warn_threshold']);
    expect(standingEvents(standing({ inUse: decimalOf('30') }))).toEqual(['warn_threshold', 'cap_reached']);
    // Refused for a request bigger than the room left, with little in use: the cap is reached for it, no warning.
    expect(standingEvents(standing({ inUse: decimalOf('3'), refused: true }))).toEqual(['cap_reached']);
    expect(standingEvents(standing({ inUse: decimalOf('29'), warnFraction: 0 }))).toEqual([]);
  });

  it('the pace is read for a monthly cap not yet reached only', () => {
    expect(paceCalls(standing())).toBe(true);
    expect(paceCalls(standing({ period: dailyPeriod(NOON_20) }))).toBe(false);
    expect(paceCalls(standing({ inUse: decimalOf('30') }))).toBe(false);
    expect(paceCalls(standing({ refused: true }))).toBe(false);
  });
});

describe('alertKey', () => {
  it('one key per (event, scope, cap, period): the documented form', () => {
    expect(alertKey('cap_reached', standing())).toBe('alert:cap_reached:user:u-ann:monthly:30:m:2026-11');
    expect(alertKey('warn_threshold', standing({ period: dailyPeriod(NOON_20), limit: decimalOf('2.5') }))).toBe(
      'alert:warn_threshold:user:u-ann:daily:2.5:d:2026-11-20',
    );
    // Another month, another cap, another scope: other keys.
    const keys = new Set([
      alertKey('cap_reached', standing()),
      alertKey('cap_reached', standing({ period: monthlyPeriod(Date.UTC(2026, 11, 2)) })),
      alertKey('cap_reached', standing({ limit: decimalOf('40') })),
      alertKey('cap_reached', standing({ scope: { kind: 'group', id: 'g-research', name: 'Research' } })),
    ]);
    expect(keys.size).toBe(4);
  });
});

describe('alertPayload', () => {
  it("a group's cap names the group in the scope and the text; amounts keep the cap's digits", () => {
    const payload = alertPayload({
      event: 'warn_threshold',
      standing: standing({
        scope: { kind: 'group', id: 'g-research', name: 'Research' },
        limit: decimalOf('0.005'),
        spent: decimalOf('0.004'),
        inUse: decimalOf('0.0045'),
        period: dailyPeriod(NOON_20),
      }),
      user: { id: 'u-bob' },
      at: NOON_20,
    });
    expect(payload).toMatchObject({
      user: { id: 'u-bob', email: null, name: null },
      scope: { kind: 'group', id: 'g-research', name: 'Research' },
      cap: { period: 'daily', period_key: 'd:2026-11-20', limit_usd: '0.005', resets_at: '2026-11-21T00:00:00.000Z' },
      spent_usd: '0.004',
      in_use_usd: '0.0045',
      projected_usd: null,
      passes_on: null,
    });
    expect(payload.text).toBe(
      'u-bob: daily cap of $0.005 (group Research) 90 % in use ($0.0045); resets at 00:00 UTC.',
    );
  });
});
