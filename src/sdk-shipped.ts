/**
 * `eunoe/shipped`: the shipped features, as the files in filters/ declare them and a custom deployment may reuse
 * them (`import { createSpendLimitFilter } from 'eunoe/shipped'`). Importing it loads the features (the context
 * engine, the LLM client pool, the proxy): a filter that only needs `defineFilter` imports `eunoe` alone.
 */

/**
 * The context filter: `createContextFilter()` is filters/context.ts; a custom one composes its valves and a set of
 * hooks of its own (`createContextHooks()`: inlet, outlet, warm for onStartup, close for onShutdown).
 */
export { createContextFilter } from './features/context/context-filter.js';
export { createContextHooks, warmContext, type ContextHookArgs } from './features/context/context-hooks.js';
export {
  contextValves,
  contextUserValves,
  type ContextValves,
  type ContextUserValves,
} from './features/context/context-valves.js';
/** The accounting and spend-limit filters' factories (tests and custom deployments inject a clock). */
export { createAccountingFilter, type AccountingOptions } from './features/accounting/accounting-filter.js';
export { createSpendLimitFilter, type SpendLimitOptions } from './features/spend-limit/spend-limit-filter.js';
/** The `openai-proxy` manifold. */
export { createOpenAIProxy } from './features/proxy/openai-proxy.js';
