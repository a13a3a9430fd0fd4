import type { Conversation } from '../conversation/chat-node.js';
import type { EchoBoost, EngineOptions, TermCache } from '../types.js';
import { weightingByName } from '../weighting/weighting-by-name.js';

/** The echo loop's gain: a message a previous reply used (score 1) weighs up to this much more (× 2). */
export const ECHO_GAIN = 1;

/**
 * Weight of every message: base weight (`!weight`, default 1) × relevance × echo (`1 + ECHO_GAIN × score` for the
 * messages the chat's previous replies used, see `PlanInput.echo`). Relevance is only computed when trimming is
 * needed (`score` false → 1 for all).
 */
export function nodeWeights(
  conversation: Conversation,
  options: EngineOptions,
  score: boolean,
  externalScores: Record<string, number> | undefined,
  termCache?: TermCache,
  echo?: EchoBoost['messages'],
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
  if (echo) {
    for (const node of nodes) {
      const boost = node.isSystem ? undefined : echo[node.id];
      if (typeof boost === 'number' && boost > 0) weights[node.index]! *= 1 + ECHO_GAIN * Math.min(1, boost);
    }
  }
  return weights;
}
