import { keywordRelevance } from './keyword-relevance.js';
import type { WeightingStrategy } from './weighting-strategy.js';

/** Floor of the keyword part of smart scores. */
export const SMART_FLOOR = 0.05;

/**
 * Keyword relevance (without the name bonus) with `pairCoherence` as the share neighbours lend each other (0 = every
 * message on its own words), then question–answer coherence (an assistant reply directly after
 * a user message scores at least `pairCoherence` × the question), then × `toolPenalty` for
 * tool calls and tool results; capped at 1.
 */
export const smartWeighting: WeightingStrategy = {
  name: 'smart',
  score: ({ nodes, query, queryIndex, options, termCache }) => {
    const scores = keywordRelevance(nodes, query, SMART_FLOOR, queryIndex, termCache, options.pairCoherence, 0);
    for (let index = 1; index < nodes.length; index += 1) {
      if (nodes[index]!.role === 'assistant' && nodes[index - 1]!.role === 'user') {
        scores[index] = Math.max(scores[index]!, options.pairCoherence * scores[index - 1]!);
      }
    }
    nodes.forEach((node, index) => {
      const factor = node.role === 'tool' || node.toolCallIds.length > 0 ? options.toolPenalty : 1;
      scores[index] = Math.min(1, scores[index]! * factor);
    });
    return scores;
  },
};
