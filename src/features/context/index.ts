/** The context filter's feature module: its valves, hooks and helpers, as the shipped filter uses them. */
export { contextValves, contextUserValves, type ContextValves, type ContextUserValves } from './context-valves.js';
export { contextInlet, contextOutlet, closeContext, warmContext, type ContextHookArgs } from './context-filter.js';
export { contextOptions } from './context-options.js';
