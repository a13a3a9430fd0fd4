import type { SelectionUnit } from './selection-algorithm.js';

/** weight × (1 + factor · i/(n − 1)), i = unit position (0 = oldest): the newest gets ×(1 + factor). */
export function recencyWeights(units: readonly SelectionUnit[], factor: number): Float64Array {
  const span = Math.max(units.length - 1, 1);
  return Float64Array.from(units, (unit) => unit.weight * (1 + (factor * unit.position) / span));
}
