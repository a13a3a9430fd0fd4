import { fillByWeight } from './fill-by-weight.js';
import { candidates, mandatoryOnly, type SelectionAlgorithm } from './selection-algorithm.js';

/** Greedy by weight: best-scoring units first, equal weights favour newer messages. */
export const greedySelection: SelectionAlgorithm = {
  name: 'greedy',
  select({ units, available, ranking }) {
    const kept = mandatoryOnly(units);
    fillByWeight(
      candidates(units),
      units.map((unit) => unit.weight),
      available,
      kept,
      ranking,
    );
    return { kept, notes: [] };
  },
};
