/**
 * Public types of the pure context engine: options, input, plan and result, plus the
 * seams (TokenCache, Summarizer, Scorer) that async features plug into.
 */
import type { PricingLookup } from '../pricing/types.js';

/** Selection algorithm names. */
export type AlgorithmName = 'greedy' | 'recency' | 'dependency' | 'prefix_cache' | 'cache_stable';

/** Weighting strategy names. */
export type WeightingName = 'static' | 'keyword' | 'smart' | 'composite';

/** Everything that tunes one planning run. */
export interface EngineOptions {
  /** Hard token limit for the whole prompt (system included); 0 = no limit. */
  maxTokens: number;
  /** Soft target: selection aims for it, exceeding it is not an error. */
  targetTokens?: number;
  /** Hard cost limit in USD for the prompt (needs `pricing`). */
  maxCostUsd?: number;
  /** Budget as a fraction of the model's context length, when pricing knows it. */
  contextFraction?: number;
  algorithm: AlgorithmName;
  weighting: WeightingName;
  /** Recency boost: weight × (1 + factor · position), position 0 = oldest, 1 = newest. */
  recencyFactor: number;
  /** The last `recent` chat messages are always kept (default 4). */
  recent: number;
  /** Smart weighting: factor for tool calls and tool results. */
  toolPenalty: number;
  /** Smart weighting: an answer inherits this fraction of its question's score. */
  pairCoherence: number;
  /** At least this many of the newest chat messages are kept. */
  minChatMessages: number;
  /** `!context=N`: only the last N turns (a turn starts at a user message). */
  contextTurns?: number;
  /** `!full`: no budget at all; only validity repairs. */
  full?: boolean;
  /** A summarizer exists: over-budget messages are marked `summarize` instead of `drop`. */
  summarize?: boolean;
  /** Expected summary size as a fraction of the summarized messages' tokens. */
  summaryRatio: number;
  /** Cap on the reserved summary block, in tokens. */
  summaryMaxTokens: number;
  /** Base weight per message id (from `!weight`). */
  messageWeights?: Record<string, number>;
  /** Composite weighting: share of the external scores in the blend, in [0,1]. */
  externalWeight: number;
  /** prefix_cache: when trimming is needed, trim down to this fraction of the budget. */
  trimTo: number;
  /** Expected completion tokens, used in the cost estimate and the cost limit. */
  expectedCompletionTokens: number;
  /** `strict`: adjacent plain user (or assistant) messages left by trimming are merged, so the roles alternate. */
  roleAlternation?: 'any' | 'strict';
  /**
   * What a user forced in stays within the hard limit: pinned and keep-tagged messages, and the recent messages past
   * `guaranteedRecent`, are kept only while they fit it (pins first, then tags, then the recent ones, each newest
   * first); what does not fit is selected like any other message. The current turn, system messages and the first
   * `max(guaranteedRecent, minChatMessages)` recent messages are kept whatever the budget. Off: everything forced
   * is kept whatever the budget.
   */
  capForced?: boolean;
  /** With `capForced`: how many of the last `recent` messages are kept whatever the budget (default `recent`). */
  guaranteedRecent?: number;
  /**
   * Over budget, a tool result of an earlier turn longer than `trimMinTokens` and its share of the budget is cut to
   * that share: its head, the lines matching the question with their neighbours, its tail (`trim/`). Default on.
   */
  trimToolResults?: boolean;
  /** The same for long user and assistant texts of earlier turns (pasted logs, files). Default off. */
  trimLongMessages?: boolean;
  /** Messages of at most this many tokens are never trimmed (default 1000). */
  trimMinTokens?: number;
  /** A message's share of the budget: what a longer one is cut to (default 0.25). */
  trimShare?: number;
  /** Tool names whose results are never trimmed. */
  trimExcludeTools?: string[];
}

/** Sync token-count cache keyed by string (encoding + message id). */
export interface TokenCache {
  get(key: string): number | undefined;
  set(key: string, tokens: number): void;
}

/** Term counts of one message's scoring text: a hash table of term keys and counts (`length`, in characters, guards against a stale entry). */
export interface TermCounts {
  length: number;
  /** Indexed terms in the text (stop words excluded): BM25's document length. */
  terms: number;
  /** Time facts of the text (bit 1: names a date, bit 2: refers to a time), found on first need. */
  time?: number;
  keys: Float64Array;
  counts: Uint32Array;
}

/** Sync cache of per-message word counts keyed by message id, so a warm turn scans only new messages. */
export interface TermCache {
  get(key: string): TermCounts | undefined;
  set(key: string, counts: TermCounts): void;
}

/** Per-message state attached by flags, by message id. */
export interface MessageMark {
  pinned?: boolean;
  tags?: string[];
}

/** Input of one planning run. */
export interface PlanInput {
  /** OpenAI-format messages as received; never mutated. */
  messages: unknown[];
  model?: string;
  options?: Partial<EngineOptions>;
  marks?: Record<string, MessageMark>;
  /** Messages carrying one of these tags are kept. */
  keepTags?: string[];
  /** Ids sent last time for this chat (from the previous `PlanResult.sequence`). */
  previousSequence?: string[];
  tokenCache?: TokenCache;
  /** Word counts by message id for keyword scoring; default: a process-wide bounded LRU (`LruTermCache`). */
  termCache?: TermCache;
  pricing?: PricingLookup;
  /** Per-model factor actual/estimated; multiplies every estimate. */
  correction?: number;
  /** Precomputed scores in [0,1] by message id (from an async Scorer), blended by `composite`. */
  externalScores?: Record<string, number>;
  /** Overrides the derived run id. */
  runId?: string;
  /**
   * The echo loop's boost (`echo/`): what this chat's previous replies repeated, decayed. The one seam through which
   * it acts: a message's weight is multiplied by `1 + ECHO_GAIN × messages[id]` (`nodeWeights`), and a trimmed
   * message's lines holding one of `terms` score higher (`trimText`). Weights only rank: budget, tool pairs, order
   * and pins hold as for any weight. Absent or empty: planning is exactly as without it.
   */
  echo?: EchoBoost;
}

/** What the echo loop lends the next turns of a chat: scores in (0, 1], already decayed. */
export interface EchoBoost {
  /** Message id → score: the messages the previous replies' entities came from. */
  messages: Readonly<Record<string, number>>;
  /** Entity → score: entities that name a few lines of a long message (the lines a reply used). */
  terms: Readonly<Record<string, number>>;
}

/** What happens to one message. */
export type Disposition = 'keep' | 'pinned' | 'summarize' | 'drop';

/**
 * Why a message got its disposition, as a code: `system` (always sent), `pinned` (`!pin`), `tag` (a keep tag),
 * `recent` (the last messages), `current` (the newest user message and what follows it), `tool-pair` (a tool call or
 * result without its partner is dropped; a call and its results share one fate), `first-user` (removed so the chat
 * starts with a user message), `role-alternation` (merged into the message before it), `flag` (outside
 * `!context=N`), `budget` (selected, or left out, by weight within the budget), `invalid` (not a message object).
 */
export type EntryCause =
  | 'system'
  | 'pinned'
  | 'tag'
  | 'recent'
  | 'current'
  | 'tool-pair'
  | 'first-user'
  | 'role-alternation'
  | 'flag'
  | 'budget'
  | 'invalid';

/** The plan line of one input message. */
export interface PlanEntry {
  index: number;
  id: string;
  role: string;
  disposition: Disposition;
  weight: number;
  tokens: number;
  /** Why, in words. */
  reason: string;
  /** Why, as a code. */
  cause: EntryCause;
  /** Input index of the message this one was merged into (strict role alternation). */
  mergedInto?: number;
  /**
   * The message was trimmed (`trimToolResults`, `trimLongMessages`): a copy with its head, the lines matching the
   * question and its tail is sent instead; `tokens` are the trimmed copy's, `tokensBefore` the input's.
   */
  trimmed?: { tokensBefore: number; leftOut: number; unit: 'lines' | 'items' };
}

/** The budget in force for a run, and where each limit came from. */
export interface PlanBudget {
  /** Effective hard limit in tokens (min of maxTokens, cost, context fraction); 0 = none. */
  limitTokens: number;
  /** What selection aimed for (soft target or hard limit); 0 = none. */
  targetTokens: number;
  maxTokens: number;
  costLimitTokens?: number;
  contextLimitTokens?: number;
  /** Tokens reserved for the future summary block (framing included). */
  summaryReserveTokens: number;
  /** Length to ask the summarizer for: the reserve minus the block's framing (0 = no summary). */
  summaryTargetTokens: number;
  /** Estimated USD of the prompt sent (+ expected completion, − cache discount), when priced. */
  estimatedCostUsd?: string;
  /** Tokens of the sent prefix identical to the previous sequence (likely prompt-cache hits). */
  cachedPrefixTokens: number;
}

/** A contiguous run of messages to summarize (what `compressContext()` needs). */
export interface SummaryRange {
  fromIndex: number;
  toIndex: number;
  ids: string[];
  tokens: number;
}

/** The full account of a planning run. */
export interface Plan {
  runId: string;
  entries: PlanEntry[];
  tokensBefore: number;
  /** Tokens of what is sent, plus the reserved summary block. */
  tokensAfter: number;
  budget: PlanBudget;
  overBudget: boolean;
  notes: string[];
  algorithm: string;
  weighting: string;
  model?: string;
  encoding: string;
  summaryRanges: SummaryRange[];
  /** Index (in the output messages) where a summary block should be inserted. */
  summaryInsertAt: number;
  /** Length of `previousSequence` still valid and reused (prefix_cache). */
  prefixReused: number;
  /** Messages whose token count came from the cache. */
  tokenCacheHits: number;
  /** With `capForced`: what was forced in but did not fit the hard limit (absent when everything fit). */
  capped?: PlanCapped;
  /**
   * Open WebUI's conversation summary (its Context Compaction), when a system message carries it: kept and counted
   * with that message, never summarized or dropped (absent without one).
   */
  compactionSummary?: CompactionSummary;
}

/** Where Open WebUI's conversation summary is in a history and what it costs. */
export interface CompactionSummary {
  /** Input index of the system message that carries it. */
  index: number;
  /** Tokens of the summary block (its marker line included), × correction: a part of that message's count. */
  tokens: number;
}

/** What `capForced` held back: forced messages that were not kept whatever the budget because they did not fit it. */
export interface PlanCapped {
  /** The hard limit they were held to, in tokens. */
  limitTokens: number;
  /** `recent` asked for, and how many of the last messages were kept for it (guaranteed ones included). */
  recent?: { asked: number; kept: number };
  /** Pinned messages held back. */
  pinned: number;
  /** Keep-tagged messages held back. */
  tagged: number;
}

/** Result of `planContext`. */
export interface PlanResult {
  /** Messages to send; kept messages are the same objects as the input. */
  messages: unknown[];
  plan: Plan;
  /** Ids of the messages sent, for the prefix tracker. */
  sequence: string[];
  /**
   * Leading messages of `messages` expected to repeat in the chat's next prompt (system prompts and the history
   * before recalled messages and the current turn): where a prompt-cache breakpoint belongs.
   */
  stablePrefix: number;
}

/** Async summarizer: turns messages into one text (issue 7 implements it). */
export interface Summarizer {
  summarize(request: {
    messages: unknown[];
    targetTokens: number;
    context?: unknown[];
    signal?: AbortSignal;
  }): Promise<string>;
}

/** Async scorer (LLM or embeddings): scores in [0,1] by message id, fed to `externalScores`. */
export interface Scorer {
  readonly name: string;
  score(request: {
    messages: unknown[];
    ids: string[];
    query: string;
    signal?: AbortSignal;
  }): Promise<Record<string, number>>;
}
