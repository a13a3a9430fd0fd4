import type { Selection, SelectionUnit } from '../selection/selection-algorithm.js';

/**
 * The units repairs rank by weight. For prefix_cache the cache, not relevance, decides what
 * goes first: recalled messages (weight 0), then the oldest history (equal weights, older
 * first), so a repair never cuts a hole in the cached prefix. Other algorithms: unchanged.
 */
export function repairUnits(units: SelectionUnit[], algorithm: string, selection: Selection): SelectionUnit[] {
  if (algorithm !== 'prefix_cache') return units;
  const recalled = new Set(selection.recalled ?? []);
  return units.map((unit) => ({ ...unit, weight: recalled.has(unit.position) ? 0 : 1 }));
}
