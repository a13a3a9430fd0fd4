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
