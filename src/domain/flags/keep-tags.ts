import type { ActiveFlags } from './types.js';
import { splitLabels } from './validate-flag-value.js';

/** The labels of the effective `keep_tag` flag (`decision` or `"decision,api"`), for `planContext({ keepTags })`. */
export function keepTags(flags: ActiveFlags): string[] {
  return splitLabels(flags.get('keep_tag'));
}
