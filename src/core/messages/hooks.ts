/**
 * The hooks of a filter or pipe, named once. `HOOKS` are the hooks a chat request runs (the Pipelines protocol's
 * `POST /{id}/filter/{hook}`, in the order of a turn: inlet before the model, outlet on its reply); Open WebUI's
 * `stream` hook is not one of them (`/{id}/filter/stream` is a 404). `LIFECYCLE_HOOKS` run outside any request.
 */
export const HOOKS = ['inlet', 'outlet'] as const;

/** A hook a chat request runs: `inlet` or `outlet`. */
export type Hook = (typeof HOOKS)[number];

/** The hooks the host runs when a module starts, stops or gets new admin valves. */
export const LIFECYCLE_HOOKS = ['onStartup', 'onShutdown', 'onValvesUpdated'] as const;

export type LifecycleHook = (typeof LIFECYCLE_HOOKS)[number];

/** True for `inlet` and `outlet`, false for the lifecycle hooks. */
export function isRequestHook(name: string): name is Hook {
  return (HOOKS as readonly string[]).includes(name);
}
