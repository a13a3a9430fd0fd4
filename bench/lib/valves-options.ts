import contextFilter from '../../filters/context.js';
import type { EngineOptions } from '../../src/domain/engine/index.js';
import { contextOptions } from '../../src/features/context/context-options.js';
import { noFlags } from '../../src/runtime/host/flags-host.js';

const valves = contextFilter.valves!.parse({});
const userValves = contextFilter.userValves!.parse({});

/**
 * The context filter's own engine options for `budget`: its valve defaults with `max_tokens` = the budget (no user
 * valves, no flags) → contextOptions, plus `overrides`.
 */
export function valvesOptions(budget: number, overrides: Partial<EngineOptions> = {}) {
  return {
    ...contextOptions({ ...valves, max_tokens: budget }, { ...userValves, max_tokens: null, recent: null }, noFlags()),
    ...overrides,
  };
}
