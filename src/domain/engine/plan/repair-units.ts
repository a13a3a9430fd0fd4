import type { Selection, SelectionUnit } from '../selection/selection-algorithm.js';
import { selectionByName } from '../selection/selection-by-name.js';
import type { AlgorithmName } from '../types.js';

/**
 * The units repairs rank by weight. For the cache-ordered algorithms (prefix_cache, cache_stable) the cache, not relevance, decides what
 * goes first: recalled messages (weight 0), then the oldest history (equal weights, older
 * first), so a repair never cuts a hole in the cached prefix. Other algorithms: unchanged.
 */
export function repairUnits(units: SelectionUnit[], algorithm: AlgorithmName, selection: Selection): SelectionUnit[] {
  if (!selectionByName(algorithm).cachePrefix) return units;
  const recalled = new Set(selection.recalled ?? []);
  return units.map((unit) => ({ ...unit, weight: recalled.has(unit.position) ? 0 : 1 }));
}
