import { smartWeighting } from './smart-weighting.js';
import type { WeightingStrategy } from './weighting-strategy.js';

/**
 * Blend of smart scores and external scores (LLM or embedding scorers, computed before
 * planning): (1 − w)·smart + w·external, then renormalised so the best message scores 1.
 * A message without an external score keeps its smart score in the blend.
 */
export const compositeWeighting: WeightingStrategy = {
  name: 'composite',
  score: (context) => {
    const smart = smartWeighting.score(context);
    const external = new Map(Object.entries(context.externalScores ?? {}));
    const share = context.options.externalWeight;
    const blended = new Float64Array(smart.length);
    let best = 0;
    context.nodes.forEach((node, index) => {
      const own = smart[index]!;
      const given = external.get(node.id);
      const outside = typeof given === 'number' && Number.isFinite(given) ? Math.min(1, Math.max(0, given)) : own;
      blended[index] = node.isSystem ? 1 : (1 - share) * own + share * outside;
      if (!node.isSystem) best = Math.max(best, blended[index]!);
    });
    context.nodes.forEach((node, index) => {
      if (!node.isSystem) blended[index] = best > 0 ? blended[index]! / best : 1;
    });
    return blended;
  },
};
