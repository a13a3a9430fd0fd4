import { parseDecimal, type Decimal } from '../pricing/decimal.js';

/** 1e9: a cost is kept as two 64-bit integers, whole nano-dollars and the remaining 1e-18 units. */
const SPLIT = 1_000_000_000n;

/**
 * An exact cost as two integers that 64-bit counters (Redis HINCRBY, SQLite SUM) can add
 * without overflow or rounding: `hi` in 1e-9 USD (up to 9.2 billion USD), `lo` in 1e-18 USD
 * (the remainder, |lo| < 1e9, so sums of up to 9 billion records fit).
 */
export interface CostParts {
  hi: bigint;
  lo: bigint;
}

/** Split a decimal cost string; malformed costs count as 0 (as in totals). */
export function splitCost(cost: string): CostParts {
  const value: Decimal = parseDecimal(cost) ?? 0n;
  return { hi: value / SPLIT, lo: value % SPLIT };
}

/** Join summed parts back into an exact Decimal. */
export function joinCost(
  hi: bigint | number | string | null | undefined,
  lo: bigint | number | string | null | undefined,
): Decimal {
  return BigInt(hi ?? 0) * SPLIT + BigInt(lo ?? 0);
}
