import type { Conversation } from '../conversation/chat-node.js';
import type { EngineOptions, TermCache } from '../types.js';
import { weightingByName } from '../weighting/weighting-by-name.js';

/**
 * Weight of every message: base weight (`!weight`, default 1) × relevance. Relevance is
 * only computed when trimming is needed (`score` false → 1 for all).
 */
export function nodeWeights(
  conversation: Conversation,
  options: EngineOptions,
  score: boolean,
  externalScores: Record<string, number> | undefined,
  termCache?: TermCache,
): Float64Array {
  const { nodes, lastUserIndex } = conversation;
  const relevance = score
    ? weightingByName(options.weighting).score({
        nodes,
        query: lastUserIndex >= 0 ? nodes[lastUserIndex]!.text : '',
        queryIndex: lastUserIndex,
        options,
        externalScores,
        termCache,
      })
    : new Float64Array(nodes.length).fill(1);
  const base = new Map(Object.entries(options.messageWeights ?? {}));
  const weights = new Float64Array(nodes.length);
  for (const node of nodes) {
    const given = node.isSystem || base.size === 0 ? undefined : base.get(node.id);
    const factor = typeof given === 'number' && Number.isFinite(given) && given >= 0 ? given : 1;
    weights[node.index] = node.isSystem ? 1 : factor * relevance[node.index]!;
  }
  return weights;
}
