import { fillByWeight, type FillRanking } from '../selection/fill-by-weight.js';
import { recencyWeights } from '../selection/recency-weights.js';
import { selectionByName } from '../selection/selection-by-name.js';
import { candidates, type SelectionUnit } from '../selection/selection-algorithm.js';
import type { EngineOptions } from '../types.js';
import { repairSelection, selectionTotals } from './repair-selection.js';

/** The weights the algorithm ranked by: recency-boosted for `recency`, plain otherwise. */
function rankingWeights(units: readonly SelectionUnit[], options: EngineOptions): ArrayLike<number> {
  return options.algorithm === 'recency'
    ? recencyWeights(units, options.recencyFactor)
    : units.map((unit) => unit.weight);
}

/**
 * Gives back the room that repairs freed: when the first-user rule removed a leading reply
 * (and its tool calls), those tokens would otherwise go unused. Fills what is left with the
 * best remaining units after the first kept one (so nothing new leads and the newest-first
 * order of equal weights holds), then repairs again; a few rounds at most. Not for the cache-ordered algorithms (prefix_cache, cache_stable), whose order the cache decides.
 * Adds the positions the repairs remove to `droppedForOrder`.
 */
export function refillSelection(
  units: readonly SelectionUnit[],
  kept: boolean[],
  fixed: number,
  aim: number,
  options: EngineOptions,
  droppedForOrder: Set<number>,
  ranking?: FillRanking,
): void {
  if (selectionByName(options.algorithm).cachePrefix || !Number.isFinite(aim)) return;
  const weights = rankingWeights(units, options);
  for (let round = 0; round < 4; round += 1) {
    const totals = selectionTotals(units, kept, options, fixed, aim);
    const room = aim - fixed - totals.chat - totals.wanted;
    const first = units.findIndex((unit) => kept[unit.position]);
    const extra = candidates(units).filter(
      (unit) =>
        unit.position > first && !kept[unit.position] && !droppedForOrder.has(unit.position) && unit.tokens <= room,
    );
    if (room <= 0 || extra.length === 0 || fillByWeight(extra, weights, room, kept, ranking) === 0) return;
    for (const position of repairSelection(units, kept, fixed, aim, options)) droppedForOrder.add(position);
  }
}
