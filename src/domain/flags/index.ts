/** The inline `!flag` feature: grammar, registry, per-chat state and the `!flags` summary line. */
export { createActiveFlags, type ActiveFlagsInit } from './active-flags.js';
export { builtinFlags } from './builtin-flags.js';
export { chatKey } from './chat-key.js';
export { describeFlags, FLAGS_LINE_PREFIX } from './describe-flags.js';
export { BUILTIN_OWNER, FlagRegistry, type RegisteredFlag } from './flag-registry.js';
export { keepTags } from './keep-tags.js';
export { parseFlagBlock, type FlagBlock, type FlagItem, type FlagOp } from './parse-flag-block.js';
export { FLAG_ONLY_TEXT } from './strip-flag-blocks.js';
export type { ActiveFlags, FlagSpec, FlagValue, MessageMarks } from './types.js';
