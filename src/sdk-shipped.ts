/**
 * `eunoe/shipped`: the shipped features, as the files in filters/ declare them and a custom deployment may reuse
 * them (`import { createSpendLimitFilter } from 'eunoe/shipped'`). Importing it loads the features (the context
 * engine, the LLM client pool, the proxy): a filter that only needs `defineFilter` imports `eunoe` alone.
 */

/** The context filter: `createContextFilter()` is filters/context.ts; its parts compose a custom one. */
export { createContextFilter } from './features/context/create-context-filter.js';
export {
  contextValves,
  contextUserValves,
  contextInlet,
  contextOutlet,
  closeContext,
  warmContext,
  type ContextValves,
  type ContextUserValves,
} from './features/context/index.js';
/** The accounting and spend-limit filters' factories (tests and custom deployments inject a clock). */
export { createAccountingFilter, type AccountingOptions } from './features/accounting/accounting-filter.js';
export { createSpendLimitFilter, type SpendLimitOptions } from './features/spend-limit/spend-limit-filter.js';
/** The `openai-proxy` manifold. */
export { createOpenAIProxy } from './features/proxy/openai-proxy.js';
