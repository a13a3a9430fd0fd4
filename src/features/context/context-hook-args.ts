import type { HookArgs } from '../../runtime/host/types.js';
import type { ContextUserValves, ContextValves } from './context-valves.js';

/** What the context filter's hooks receive. */
export type ContextHookArgs = HookArgs<ContextValves, ContextUserValves>;
