import { compare, decimalOf, formatFixed, SCALE, type Decimal } from '../pricing/decimal.js';

const ONE_DOLLAR = decimalOf(1);
/** Most decimals a user-facing amount shows (a nano-dollar). */
const MAX_PLACES = 9;

/** True when `value` has no digits past `places` decimals. */
function exactAt(value: Decimal, places: number): boolean {
  return value % 10n ** BigInt(SCALE - places) === 0n;
}

/**
 * A cap as a person set it: at least 2 decimals, and as many more as it has (up to 6): `$20.00`, `$0.10`,
 * `$0.005`, `$0.0125` (never rounded to a different cap, as `$0.005` → `$0.01` would be).
 */
export function formatCapUsd(limit: Decimal): string {
  let places = 2;
  while (places < 6 && !exactAt(limit, places)) places++;
  return `$${formatFixed(limit, places)}`;
}

/**
 * An amount spent or estimated: 2 decimals from $1 up, 4 below, at least `minPlaces` (the cap's own, so
 * `$0.0045 of $0.005` compare digit by digit), and more for a tiny non-zero amount until a digit shows
 * (`$0.000003`), up to 9.
 */
export function formatSpendUsd(value: Decimal, minPlaces = 0): string {
  let places = Math.max(compare(value < 0n ? -value : value, ONE_DOLLAR) >= 0 ? 2 : 4, minPlaces);
  const unit = (digits: number) => 10n ** BigInt(SCALE - digits);
  while (places < MAX_PLACES && value !== 0n && (value < 0n ? -value : value) < unit(places) / 2n) places++;
  return `$${formatFixed(value, places)}`;
}

/** Decimals the cap's formatting uses (for formatSpendUsd's minPlaces). */
export function capPlaces(limit: Decimal): number {
  return formatCapUsd(limit).split('.')[1]?.length ?? 0;
}
