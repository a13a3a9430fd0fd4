import type { UsageGroupBy } from './summarize-usage.js';
import type { UsagePage, UsageQuery, UsageSummary } from './usage-store.js';
import type { DailyDimension, DailyRow } from './daily-usage.js';
import type { RejectedUsage } from './normalize-usage.js';

/** Token counts in OpenAI subset semantics (cached and cache-write ⊂ prompt; reasoning ⊂ completion). */
export interface TokenCounts {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  totalTokens: number;
}

/** One normalised usage record as kept in the ledger (one per assistant message). */
export interface UsageRecord extends TokenCounts {
  /** Open WebUI assistant message id; the ledger is idempotent by it. */
  messageId: string;
  time: number;
  userId: string;
  userRole?: string;
  /** The user's email as Open WebUI sent it (absent on records older versions wrote): caps set by email find their user by it. */
  userEmail?: string;
  chatId?: string;
  model: string;
  /** The price-table id the model resolved to, when it did. */
  pricedAs?: string;
  /** USD as an exact decimal string. */
  cost: string;
  /** reported: the provider's own cost (OpenRouter usage.cost); computed: usage × price table; estimated: tokenizer estimate, no usage; unpriced: usage known, price unknown. */
  costSource: 'reported' | 'computed' | 'estimated' | 'unpriced';
  usageSource: 'reported' | 'estimated';
  /** Open WebUI background task (title, tags) when set. */
  task?: string;
  /** Usage fields the backend reported that were refused (out of USAGE_BOUNDS) and replaced; absent when none. */
  rejectedUsage?: RejectedUsage[];
}

/** The spend ledger: a host service shared by the accounting filter, spend limits and /usage. */
export interface Ledger {
  /** Record one reply; false when that message id was already recorded. */
  record(entry: UsageRecord): Promise<boolean>;
  /** Every record in [from, to), oldest first (small sets; use scan or latest for large ones). */
  list(query: UsageQuery): Promise<UsageRecord[]>;
  /** Total USD (exact decimal string) a user spent in [from, to); one counter read for a UTC day or month. */
  spent(userId: string, from: number, to: number): Promise<string>;
  /** Totals (and groups) aggregated in the store. */
  summarize(query: UsageQuery, groupBy?: UsageGroupBy): Promise<UsageSummary>;
  /** The newest `limit` records, oldest first, with a cursor to older ones. */
  latest(query: UsageQuery, limit: number, before?: string): Promise<UsagePage>;
  /** Daily aggregates (written with each record) of the UTC days [fromDay, toDay), `YYYY-MM-DD`. */
  daily(fromDay: string, toDay: string, dimension: DailyDimension): Promise<DailyRow[]>;
  /** Every record, oldest first, in chunks. */
  scan(query: UsageQuery, visit: (chunk: UsageRecord[]) => void | Promise<void>): Promise<void>;
}

/** Learned per-model ratio actual/estimated prompt tokens, fed by accounting, read by the context engine. */
export interface TokenCorrections {
  get(model: string): Promise<number | undefined>;
  observe(model: string, estimated: number, actual: number): Promise<number>;
}
