import { fillByWeight } from './fill-by-weight.js';
import { recencyWeights } from './recency-weights.js';
import { candidates, mandatoryOnly, type SelectionAlgorithm } from './selection-algorithm.js';

/** Recency-biased greedy: weights boosted linearly towards the newest message, then greedy. */
export const recencySelection: SelectionAlgorithm = {
  name: 'recency',
  select({ units, available, options, ranking }) {
    const kept = mandatoryOnly(units);
    fillByWeight(candidates(units), recencyWeights(units, options.recencyFactor), available, kept, ranking);
    return { kept, notes: [] };
  },
};
