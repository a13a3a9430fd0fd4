import type { SelectionUnit } from './selection-algorithm.js';

/** Value per token used to rank candidates: weight ÷ √tokens (a unit costs at least 1 token). */
export function unitDensity(weight: number, tokens: number): number {
  return weight / Math.sqrt(Math.max(1, tokens));
}

/** True when every unit has the same relevance weight (static weighting, or nothing matched). */
function uniform(units: readonly SelectionUnit[]): boolean {
  return units.every((unit) => unit.weight === units[0]!.weight);
}

/**
 * Greedy fill by density: weight ÷ √tokens first (two small relevant messages beat one big,
 * equally relevant one; the square root keeps a long, highly relevant message ahead of short
 * filler), ties to the newer unit, each unit kept if it still fits (smaller units may fill
 * the gap). When all units are equally relevant there is nothing to trade per token, so the
 * order is by weight alone and equal weights favour newer messages (W5). Marks `kept` in
 * place and returns the tokens used.
 */
export function fillByWeight(units: readonly SelectionUnit[], weights: ArrayLike<number>, available: number, kept: boolean[]): number {
  const density = new Float64Array(kept.length);
  const perToken = !uniform(units);
  for (const unit of units) density[unit.position] = perToken ? unitDensity(weights[unit.position]!, unit.tokens) : weights[unit.position]!;
  const order = units.slice().sort((a, b) => density[b.position]! - density[a.position]! || b.position - a.position);
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
