import type { ActiveFlags } from '../../domain/flags/types.js';
import type { FilterBody, PipelineUser } from './types.js';
import type { Hook } from '../../core/messages/hooks.js';

/** How the host gets the `!flag` state of a request (implemented on src/domain/flags). */
export interface FlagsHost {
  resolve(options: {
    body: FilterBody;
    user: PipelineUser | null;
    hook: Hook;
    /** The user's default flag block (the user valve the filter declares as `defaultFlagsValve`), if any. */
    defaults?: string;
  }): Promise<{ flags: ActiveFlags; body: FilterBody }>;
}

/** Flags for a request when no flags host is configured: nothing active. */
export function noFlags(chatKey = ''): ActiveFlags {
  return {
    chatKey,
    effective: {},
    persistent: {},
    temporary: {},
    marks: {},
    notices: [],
    source: 'none',
    has: () => false,
    get: () => undefined,
  };
}
