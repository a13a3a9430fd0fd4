import type { SelectionUnit } from '../selection/selection-algorithm.js';

/**
 * Drops kept optional units, lowest weight first (older first on ties), until `used` ≤
 * `limit`, so repairs never push the total over budget. Returns the new total.
 */
export function enforceBudget(units: readonly SelectionUnit[], kept: boolean[], used: number, limit: number): number {
  if (used <= limit) return used;
  const optional = units.filter((unit) => kept[unit.position] && !unit.mandatory);
  optional.sort((a, b) => a.weight - b.weight || a.position - b.position);
  let total = used;
  for (const unit of optional) {
    if (total <= limit) break;
    kept[unit.position] = false;
    total -= unit.tokens;
  }
  return total;
}
