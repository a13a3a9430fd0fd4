import { defineFilter } from '../../runtime/host/define-filter.js';
import { contextUserValves, contextValves } from './context-valves.js';
import { createContextHooks } from './context-hooks.js';

/**
 * The context filter (filters/context.ts): on every inlet, scores the history against the current question and keeps,
 * summarizes or drops messages under the token/cost budget, obeying the chat's `!flags`; on outlet, notes under the
 * reply. Each filter it makes has its own token cache, LLM clients and ahead-of-time runner (its onShutdown closes
 * them): two context filters in one process share nothing.
 */
export function createContextFilter() {
  const hooks = createContextHooks();
  return defineFilter({
    name: 'Context Budget',
    valves: contextValves,
    userValves: contextUserValves,
    defaultFlagsValve: 'default_flags',
    inlet: hooks.inlet,
    outlet: hooks.outlet,
    onStartup: hooks.warm,
    onShutdown: hooks.close,
  });
}
