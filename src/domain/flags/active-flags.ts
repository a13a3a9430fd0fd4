import type { ActiveFlags, FlagValue, MessageMarks } from './types.js';

/** Everything an ActiveFlags is built from. */
export interface ActiveFlagsInit {
  chatKey: string;
  persistent?: Record<string, FlagValue>;
  temporary?: Record<string, FlagValue>;
  defaults?: Record<string, FlagValue>;
  /** Keys switched off with `!-key` in this chat: they hide the matching default. */
  cleared?: readonly string[];
  marks?: Record<string, MessageMarks>;
  notices?: readonly string[];
  source?: ActiveFlags['source'];
}

/**
 * Build a frozen ActiveFlags: effective = defaults (minus cleared keys) < persistent < temporary.
 * With only a chat key it is the "no flags" value hosts and tests can hand to hooks.
 */
export function createActiveFlags(init: ActiveFlagsInit): ActiveFlags {
  const cleared = new Set(init.cleared ?? []);
  const defaults = Object.fromEntries(Object.entries(init.defaults ?? {}).filter(([key]) => !cleared.has(key)));
  const persistent = { ...init.persistent };
  const temporary = { ...init.temporary };
  const effective: Record<string, FlagValue> = Object.freeze({ ...defaults, ...persistent, ...temporary });
  const flags: ActiveFlags = {
    chatKey: init.chatKey,
    effective,
    persistent: Object.freeze(persistent),
    temporary: Object.freeze(temporary),
    marks: Object.freeze({ ...init.marks }),
    notices: Object.freeze([...(init.notices ?? [])]),
    source: init.source ?? 'none',
    ...(Object.keys(defaults).length > 0 ? { defaults: Object.freeze(defaults) } : {}),
    has: (key: string) => {
      const value = effective[key.toLowerCase()];
      return value !== undefined && value !== false;
    },
    get: (key: string) => effective[key.toLowerCase()],
  };
  return Object.freeze(flags);
}
