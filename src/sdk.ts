/**
 * What filter and pipe files import, by package name from any folder: `import { defineFilter, baseValves, z } from
 * 'eunoe'`. Only what writing one needs, so a filter's start loads a few dozen small modules: the shipped features'
 * parts are a separate entry, `eunoe/shipped` (src/sdk-shipped.ts). test/filters/sdk-entry.test.ts keeps this entry's
 * run-time graph small.
 */
export { z } from 'zod';
export { defineFilter } from './runtime/host/define-filter.js';
export { baseValves } from './runtime/host/types.js';
export { secret, SECRET_MASK } from './runtime/host/secret-valves.js';
export { FilterError } from './core/errors/filter-error.js';
export { appendToReply } from './core/messages/append-to-reply.js';
export { chatMessageSchema } from './core/messages/chat-message-schema.js';
/** Services features provide, by typed key: `provided(services, contextStatsService)`. */
export { provided, serviceKey, type ServiceKey } from './runtime/host/service-registry.js';
export {
  contextStatsService,
  modelSwitchesService,
  replyClaimsService,
  spendCapsService,
} from './runtime/host/shipped-service-keys.js';
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

/** Pipes and manifolds (models served by `POST /chat/completions`): see src/runtime/pipes/. */
export { definePipe } from './runtime/pipes/define-pipe.js';
export type { PipeDefinition, PipeArgs, PipeChunk, PipeResult, ManifoldModel } from './runtime/pipes/types.js';
