import type { WeightingStrategy } from './weighting-strategy.js';

/** Every message scores 1: selection then depends on recency and base weights only. */
export const staticWeighting: WeightingStrategy = {
  name: 'static',
  score: ({ nodes }) => new Float64Array(nodes.length).fill(1),
};
