/** What filter files import, by package name from any folder: `import { defineFilter, baseValves, z } from 'eunoe'`. */
export { z } from 'zod';
export { defineFilter } from './runtime/host/define-filter.js';
export { baseValves } from './runtime/host/types.js';
/** Services features provide, by typed key: `provided(services, contextStatsService)`. */
export { provided, serviceKey, type ServiceKey } from './runtime/host/service-registry.js';
export { contextStatsService, contextMetricsService } from './features/context/services.js';
export { replyClaimsService } from './features/accounting/services.js';
export type {
  FilterDefinition,
  HookArgs,
  LifecycleArgs,
  PipelineUser,
  FilterBody,
  FilterEvent,
  HostServices,
} from './runtime/host/types.js';
export type { ActiveFlags, FlagSpec, FlagValue } from './domain/flags/types.js';
export type {
  ChatMessage,
  ChatRole,
  ContentPart,
  ImagePart,
  OtherPart,
  TextPart,
  ToolCall,
} from './core/messages/chat-message.js';
export { chatMessageSchema } from './core/messages/chat-message-schema.js';
export { FilterError } from './core/errors/filter-error.js';
export { appendToReply } from './core/messages/append-to-reply.js';
export { secret, SECRET_MASK } from './runtime/host/secret-valves.js';

/** Pipes and manifolds (models served by `POST /chat/completions`): see src/runtime/pipes/. */
export { definePipe } from './runtime/pipes/define-pipe.js';
export type { PipeDefinition, PipeArgs, PipeChunk, PipeResult, ManifoldModel } from './runtime/pipes/types.js';
/** The shipped `openai-proxy` manifold (filters/openai-proxy.ts declares it). */
export { createOpenAIProxy } from './features/proxy/openai-proxy.js';

/** The shipped context filter's parts (filters/context.ts declares them; a custom filter may reuse them). */
export {
  contextValves,
  contextUserValves,
  contextInlet,
  contextOutlet,
  closeContext,
  warmContext,
} from './features/context/index.js';
/** The shipped accounting and spend-limit filters' factories (tests and custom deployments inject a clock). */
export { createAccountingFilter, type AccountingOptions } from './features/accounting/accounting-filter.js';
export { createSpendLimitFilter, type SpendLimitOptions } from './features/spend-limit/spend-limit-filter.js';
