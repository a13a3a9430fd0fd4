import { loadEncoder } from '../../domain/engine/index.js';
import { createContextInlet } from './context-inlet.js';
import { closeContextInstance, createContextInstance } from './context-instance.js';
import { createContextOutlet } from './context-outlet.js';

export type { ContextHookArgs } from './context-hook-args.js';

/**
 * One context filter's hooks over its own state (token cache, model clients, ahead-of-time runner): `inlet`,
 * `outlet`, `warm` (its onStartup) and `close` (its onShutdown). Two sets of hooks share nothing.
 */
export function createContextHooks() {
  const instance = createContextInstance();
  return {
    inlet: createContextInlet(instance),
    outlet: createContextOutlet(instance),
    warm: warmContext,
    close: () => closeContextInstance(instance),
  };
}

/**
 * Loads the default tokenizer's ranks (the filter's onStartup): done at the first inlet instead, it held the
 * event loop for about a second while other requests waited.
 */
export function warmContext(): void {
  loadEncoder('o200k_base');
}

/**
 * The default context hooks, for a filter composed of the parts (`eunoe/shipped`): they share one instance, which
 * `closeContext` closes. `createContextFilter()` makes a filter with hooks of its own.
 */
const defaultHooks = createContextHooks();
export const contextInlet = defaultHooks.inlet;
export const contextOutlet = defaultHooks.outlet;
/** Stops the default hooks' background summarizing and closes their model clients. */
export const closeContext = defaultHooks.close;
