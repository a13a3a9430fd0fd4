import type { WeightingName } from '../types.js';
import { compositeWeighting } from './composite-weighting.js';
import { keywordWeighting } from './keyword-weighting.js';
import { smartWeighting } from './smart-weighting.js';
import { staticWeighting } from './static-weighting.js';
import type { WeightingStrategy } from './weighting-strategy.js';

const STRATEGIES: Record<WeightingName, WeightingStrategy> = {
  static: staticWeighting,
  keyword: keywordWeighting,
  smart: smartWeighting,
  composite: compositeWeighting,
};

/** The strategy registered under a name. */
export function weightingByName(name: WeightingName): WeightingStrategy {
  return STRATEGIES[name];
}
