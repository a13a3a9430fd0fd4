import type { SelectionUnit } from './selection-algorithm.js';

/**
 * Greedy fill: highest weight first, ties to the newer unit (W5), each unit kept if it
 * still fits (smaller, lower-weight units may fill the gap). Marks `kept` in place and
 * returns the tokens used.
 */
export function fillByWeight(units: readonly SelectionUnit[], weights: ArrayLike<number>, available: number, kept: boolean[]): number {
  const order = units.slice().sort((a, b) => weights[b.position]! - weights[a.position]! || b.position - a.position);
  let used = 0;
  for (const unit of order) {
    if (kept[unit.position]) continue;
    if (used + unit.tokens <= available) {
      kept[unit.position] = true;
      used += unit.tokens;
    }
  }
  return used;
}
