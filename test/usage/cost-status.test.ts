import { describe, expect, it } from 'vitest';
import { formatCostStatus } from '../../src/domain/usage/cost-status.js';
import { decimalOf } from '../../src/domain/pricing/decimal.js';

const at = (spent: number | string, cap?: number) => ({
  spent: decimalOf(spent),
  ...(cap === undefined ? {} : { cap: decimalOf(cap) }),
});

describe('the cost status line', () => {
  it('writes the reply as the usage line does and each period against its cap with the cap’s decimals', () => {
    expect(formatCostStatus({ cost: '0.0123', costSource: 'reported' }, at('0.45', 2), at('8.1', 20))).toBe(
      'this reply $0.0123 · today $0.4500 of $2.00 · month $8.10 of $20.00',
    );
    // A cap of half a cent keeps its digits, and the spend shows as many (never rounded to another cap).
    expect(formatCostStatus({ cost: '0.0004', costSource: 'computed' }, at('0.0045', 0.005), at('0.0045'))).toBe(
      'this reply $0.0004 · today $0.0045 of $0.005 · month $0.0045',
    );
  });

  it('marks an estimate, says when the price is unknown, and writes a free reply as $0', () => {
    expect(formatCostStatus({ cost: '0.002', costSource: 'estimated' }, at(1.5), at(1.5))).toBe(
      'this reply ~$0.0020 · today $1.50 · month $1.50',
    );
    expect(formatCostStatus({ cost: '0', costSource: 'unpriced' }, at(0), at(0))).toBe(
      'this reply: price unknown · today $0.0000 · month $0.0000',
    );
    expect(formatCostStatus({ cost: '0', costSource: 'computed' }, at('0.000003'), at(3))).toBe(
      'this reply $0 · today $0.000003 · month $3.00',
    );
  });
});
