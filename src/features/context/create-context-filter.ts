import { defineFilter } from '../../runtime/host/define-filter.js';
import { contextUserValves, contextValves } from './context-valves.js';
import { closeContext, contextInlet, contextOutlet, warmContext } from './context-filter.js';

/**
 * The context filter (filters/context.ts): on every inlet, scores the history against the current question and keeps,
 * summarizes or drops messages under the token/cost budget, obeying the chat's `!flags`; on outlet, notes under the
 * reply. Its hooks share the process's token cache and LLM clients: one context filter per process.
 */
export function createContextFilter() {
  return defineFilter({
    name: 'Context Budget',
    valves: contextValves,
    userValves: contextUserValves,
    defaultFlagsValve: 'default_flags',
    inlet: contextInlet,
    outlet: contextOutlet,
    onStartup: warmContext,
    onShutdown: closeContext,
  });
}
