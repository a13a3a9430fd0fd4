/**
 * Exact decimal money arithmetic on BigInt with a fixed scale of 18 decimal places.
 * A `Decimal` is the integer number of 1e-18 units. No floating point anywhere.
 */

/** Number of decimal places every Decimal carries. */
export const SCALE = 18;
const FACTOR = 10n ** BigInt(SCALE);

/** An exact decimal: the amount × 10^18 as a BigInt. */
export type Decimal = bigint;

/** Zero. */
export const ZERO: Decimal = 0n;

const PATTERN = /^([+-])?(\d+)(?:\.(\d*))?(?:e([+-]?\d+))?$|^([+-])?\.(\d+)(?:e([+-]?\d+))?$/i;

/**
 * Parse a decimal string (`"0.0000025"`, `"-1"`, `"3e-7"`) or a finite number (through its
 * shortest round-trip string) into a Decimal; undefined when malformed. Digits past 18
 * places are truncated toward zero.
 */
export function parseDecimal(value: unknown): Decimal | undefined {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return undefined;
    text = String(value);
  } else if (typeof value === 'string') {
    text = value.trim();
  } else if (typeof value === 'bigint') {
    return value * FACTOR;
  } else {
    return undefined;
  }
  const match = PATTERN.exec(text);
  if (!match) return undefined;
  const sign = match[1] ?? match[5] ?? '+';
  const whole = match[2] ?? '0';
  const fraction = match[3] ?? match[6] ?? '';
  const exponent = Number(match[4] ?? match[7] ?? '0');
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > 400) return undefined;
  let digits = BigInt(whole + fraction);
  const shift = SCALE - fraction.length + exponent;
  if (shift >= 0) digits *= 10n ** BigInt(shift);
  else digits /= 10n ** BigInt(-shift);
  return sign === '-' ? -digits : digits;
}

/** Sum of any number of Decimals. */
export function add(...values: Decimal[]): Decimal {
  return values.reduce((sum, value) => sum + value, 0n);
}

/** Multiply a Decimal by an integer count (tokens, requests). */
export function mulInt(value: Decimal, count: number | bigint): Decimal {
  const integer = typeof count === 'bigint' ? count : BigInt(Math.trunc(count));
  return value * integer;
}

/** Multiply two Decimals (truncating past 18 places). */
export function mul(left: Decimal, right: Decimal): Decimal {
  return (left * right) / FACTOR;
}

/** -1, 0 or 1 as `left` is less than, equal to or greater than `right`. */
export function compare(left: Decimal, right: Decimal): -1 | 0 | 1 {
  return left < right ? -1 : left > right ? 1 : 0;
}

/** Canonical string: no exponent, no trailing zeros (`"0.00522"`, `"20"`, `"-1"`). */
export function formatDecimal(value: Decimal): string {
  const negative = value < 0n;
  const absolute = negative ? -value : value;
  const whole = absolute / FACTOR;
  const fraction = (absolute % FACTOR).toString().padStart(SCALE, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** Round half away from zero to `places` decimals and format with exactly that many (`"20.00"`). */
export function formatFixed(value: Decimal, places: number): string {
  const unit = 10n ** BigInt(SCALE - places);
  const negative = value < 0n;
  const absolute = negative ? -value : value;
  const rounded = ((absolute + unit / 2n) / unit) * unit;
  const text = formatDecimal(rounded);
  const [whole, fraction = ''] = text.split('.');
  const padded = places > 0 ? `${whole}.${fraction.padEnd(places, '0')}` : `${whole}`;
  return negative && rounded !== 0n ? `-${padded}` : padded;
}

/** Parse a decimal string that must be valid (internal data); throws on malformed input. */
export function decimalOf(value: string | number): Decimal {
  const parsed = parseDecimal(value);
  if (parsed === undefined) throw new TypeError(`not a decimal: ${String(value)}`);
  return parsed;
}
