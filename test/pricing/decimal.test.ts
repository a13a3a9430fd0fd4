import { describe, expect, it } from 'vitest';
import {
  add,
  compare,
  formatDecimal,
  formatFixed,
  mul,
  mulInt,
  parseDecimal,
} from '../../src/domain/pricing/decimal.js';

describe('decimal', () => {
  it('parses OpenRouter price strings exactly', () => {
    expect(formatDecimal(parseDecimal('0.0000025')!)).toBe('0.0000025');
    expect(formatDecimal(parseDecimal('3e-7')!)).toBe('0.0000003');
    expect(formatDecimal(parseDecimal('-1')!)).toBe('-1');
    expect(formatDecimal(parseDecimal(0.00522)!)).toBe('0.00522');
    expect(formatDecimal(parseDecimal('.5')!)).toBe('0.5');
  });

  it('rejects malformed values', () => {
    for (const value of ['', 'abc', '1.2.3', '1e', null, undefined, {}, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(parseDecimal(value)).toBeUndefined();
    }
  });

  it('adds without the float drift of 0.1 + 0.2', () => {
    const sum = add(parseDecimal('0.1')!, parseDecimal('0.2')!);
    expect(formatDecimal(sum)).toBe('0.3');
    let total = 0n;
    for (let index = 0; index < 1000; index++) total = add(total, parseDecimal('0.001')!);
    expect(formatDecimal(total)).toBe('1');
  });

  it('multiplies by token counts and by decimals', () => {
    expect(formatDecimal(mulInt(parseDecimal('0.0000025')!, 176))).toBe('0.00044');
    expect(formatDecimal(mul(parseDecimal('1.27')!, parseDecimal('0.9')!))).toBe('1.143');
  });

  it('compares and formats with rounding', () => {
    expect(compare(parseDecimal('20')!, parseDecimal('19.999999')!)).toBe(1);
    expect(compare(parseDecimal('1')!, parseDecimal('1.0')!)).toBe(0);
    expect(formatFixed(parseDecimal('20')!, 2)).toBe('20.00');
    expect(formatFixed(parseDecimal('0.00525')!, 4)).toBe('0.0053');
    expect(formatFixed(parseDecimal('0.00522')!, 4)).toBe('0.0052');
    expect(formatFixed(parseDecimal('-0.005')!, 2)).toBe('-0.01');
  });
});
