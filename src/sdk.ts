/** What filter files import, by package name from any folder: `import { defineFilter, baseValves, z } from 'eunoe'`. */
export { z } from 'zod';
export { defineFilter } from './host/define-filter.js';
export { baseValves } from './host/types.js';
export type {
  FilterDefinition,
  HookArgs,
  LifecycleArgs,
  PipelineUser,
  FilterBody,
  FilterEvent,
  HostServices,
} from './host/types.js';
export type { ActiveFlags, FlagSpec, FlagValue } from './flags/types.js';
export type {
  ChatMessage,
  ChatRole,
  ContentPart,
  ImagePart,
  OtherPart,
  TextPart,
  ToolCall,
} from './messages/chat-message.js';
export { chatMessageSchema } from './messages/chat-message-schema.js';
export { FilterError } from './errors/filter-error.js';
export { appendToReply } from './host/append-to-reply.js';
export { secret, SECRET_MASK } from './host/secret-valves.js';

/** Pipes and manifolds (models served by `POST /chat/completions`): see src/pipes/. */
export { definePipe } from './pipes/define-pipe.js';
export type { PipeDefinition, PipeArgs, PipeChunk, PipeResult, ManifoldModel } from './pipes/types.js';
/** The shipped `openai-proxy` manifold (filters/openai-proxy.ts declares it). */
export { createOpenAIProxy } from './proxy/openai-proxy.js';

/** The shipped context filter's parts (filters/context.ts declares them; a custom filter may reuse them). */
export {
  contextValves,
  contextUserValves,
  contextInlet,
  contextOutlet,
  closeContext,
  warmContext,
} from './context/index.js';
/** The shipped accounting and spend-limit filters' factories (tests and custom deployments inject a clock). */
export { createAccountingFilter, type AccountingOptions } from './accounting/accounting-filter.js';
export { createSpendLimitFilter, type SpendLimitOptions } from './spend-limit/spend-limit-filter.js';
