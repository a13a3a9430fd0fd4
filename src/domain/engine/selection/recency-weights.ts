import type { SelectionUnit } from './selection-algorithm.js';

/** weight × (1 + factor · i/(n − 1)), i = unit position (0 = oldest): the newest gets ×(1 + factor). */
export function recencyWeights(units: readonly SelectionUnit[], factor: number): Float64Array {
  const span = Math.max(units.length - 1, 1);
  const weights = new Float64Array(units.length);
  for (let index = 0; index < units.length; index += 1)
    weights[index] = units[index]!.weight * (1 + (factor * units[index]!.position) / span);
  return weights;
}
