/**
 * Public API of the pure context engine: `planContext` decides what of a conversation the
 * model sees under a token/cost budget, without ever producing an invalid message order.
 */
export type {
  AlgorithmName,
  CompactionSummary,
  Disposition,
  EchoBoost,
  EntryCause,
  EngineOptions,
  MessageMark,
  Plan,
  PlanBudget,
  PlanCapped,
  PlanEntry,
  PlanInput,
  PlanResult,
  Scorer,
  Summarizer,
  SummaryRange,
  TermCache,
  TermCounts,
  TokenCache,
  WeightingName,
} from './types.js';
export { planContext } from './plan/plan-context.js';
export { COMPACTION_SUMMARY_MARKER } from './conversation/compaction-summary.js';
export { defaultEngineOptions, resolveEngineOptions } from './options/default-engine-options.js';
export { LruTokenCache } from './tokens/lru-token-cache.js';
export { LruTermCache } from './weighting/lru-term-cache.js';
export { encodingForModel, bareModelId, FALLBACK_ENCODING, type EncodingName } from './tokens/encoding-for-model.js';
export { countMessageTokens, REPLY_PRIMING_TOKENS, TOKENS_PER_MESSAGE } from './tokens/count-message-tokens.js';
export { loadEncoder, type TokenCounter } from './tokens/load-encoder.js';
export { imageTokens, tileTokens } from './tokens/image-tokens.js';
export { imageDimensions } from './tokens/image-dimensions.js';
export { insertSummary, SUMMARY_HEADER } from './summarize/insert-summary.js';
export { validateMessageOrder, type OrderViolation } from './constraints/validate-message-order.js';
export { messageIds, contentHash } from './message-id.js';
export { contentText, newestUserIndex } from './conversation/message-text.js';
export { TRIM_DEFAULTS } from './trim/trim-long-messages.js';
export { extractEntities } from './echo/extract-entities.js';
export { onlyDetailsBlocks, withoutDetailsBlocks } from './trim/details-blocks.js';
export { matchEcho, type EchoRecord } from './echo/match-echo.js';
export {
  decayed,
  echoBoost,
  mergeEcho,
  ECHO_HALF_LIFE_TURNS,
  ECHO_MAX_MESSAGES,
  ECHO_MAX_TERMS,
  type EchoItem,
  type EchoState,
} from './echo/echo-state.js';
export { cacheOrdered } from './selection/selection-by-name.js';
