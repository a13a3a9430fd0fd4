import { descendingOrder } from './descending-order.js';
import type { SelectionUnit } from './selection-algorithm.js';

/**
 * Greedy fill by weight: the best-scoring units first, ties to the newer unit, each kept if it
 * still fits (smaller units may fill the gap). Weight alone, not weight per token: on real
 * conversations the messages a question needs are often the long, fact-carrying ones, and
 * ranking by weight ÷ √tokens cost 3–5 points of evidence recall (bench:recall, LoCoMo dev).
 * Marks `kept` in place and returns the tokens used.
 */
export function fillByWeight(
  units: readonly SelectionUnit[],
  weights: ArrayLike<number>,
  available: number,
  kept: boolean[],
): number {
  // Units come in position order, so a larger index is newer: ties go to it.
  const count = units.length;
  const key = new Float64Array(count);
  for (let at = 0; at < count; at += 1) key[at] = weights[units[at]!.position]!;
  const order = descendingOrder(key);
  let used = 0;
  for (let rank = 0; rank < count; rank += 1) {
    const unit = units[order[rank]!]!;
    if (kept[unit.position]) continue;
    if (used + unit.tokens <= available) {
      kept[unit.position] = true;
      used += unit.tokens;
    }
  }
  return used;
}
