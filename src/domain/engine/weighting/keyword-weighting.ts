import { keywordRelevance } from './keyword-relevance.js';
import type { WeightingStrategy } from './weighting-strategy.js';

/** Floor of keyword scores, so no message is worthless. */
export const KEYWORD_FLOOR = 0.1;

/** BM25 relevance to the last user message, normalised to [floor, 1]. */
export const keywordWeighting: WeightingStrategy = {
  name: 'keyword',
  score: ({ nodes, query, queryIndex, termCache }) =>
    keywordRelevance(nodes, query, KEYWORD_FLOOR, queryIndex, termCache),
};
