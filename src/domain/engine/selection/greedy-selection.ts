import { fillByWeight, fillRanking } from './fill-by-weight.js';
import { candidates, mandatoryOnly, type SelectionAlgorithm } from './selection-algorithm.js';

/** Greedy by weight: best-scoring units first, equal weights favour newer messages. */
export const greedySelection: SelectionAlgorithm = {
  name: 'greedy',
  select({ units, available }) {
    const kept = mandatoryOnly(units);
    fillByWeight(
      candidates(units),
      units.map((unit) => unit.weight),
      available,
      kept,
      fillRanking(units),
    );
    return { kept, notes: [] };
  },
};
