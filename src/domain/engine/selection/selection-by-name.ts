import type { AlgorithmName } from '../types.js';
import { cacheStableSelection } from './cache-stable-selection.js';
import { dependencySelection } from './dependency-selection.js';
import { greedySelection } from './greedy-selection.js';
import { prefixCacheSelection } from './prefix-cache-selection.js';
import { recencySelection } from './recency-selection.js';
import type { SelectionAlgorithm } from './selection-algorithm.js';

const ALGORITHMS: Record<AlgorithmName, SelectionAlgorithm> = {
  greedy: greedySelection,
  recency: recencySelection,
  dependency: dependencySelection,
  prefix_cache: prefixCacheSelection,
  cache_stable: cacheStableSelection,
};

/** The algorithm registered under a name. */
export function selectionByName(name: AlgorithmName): SelectionAlgorithm {
  return ALGORITHMS[name];
}

/** Whether the algorithm's order follows the chat's previous prompt (it needs `previousSequence`). */
export function cacheOrdered(name: AlgorithmName): boolean {
  return ALGORITHMS[name]?.cachePrefix === true;
}
