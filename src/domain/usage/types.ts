import type { Decimal } from '../pricing/decimal.js';

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
  /**
   * The model the request asked for, when another one answered it: the spend-limit filter's `cheaper` soft mode
   * switched it (`model` is the one that answered and was priced). Absent otherwise.
   */
  requestedModel?: string;
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
  /**
   * The shared cap scopes this reply counts toward (`g:<group>`, `m:<pattern>`, `g:<group>|m:<pattern>`; see
   * spend-scopes.ts), fixed when it is recorded: the store adds its cost to each scope's day and month counters in the
   * same atomic write as the record. Absent when no shared cap applied.
   */
  scopes?: string[];
}

/** A record's scopes: its `scopes` when that is a list, the strings only, each once (a malformed field is none). */
export function recordScopes(record: Pick<UsageRecord, 'scopes'>): string[] {
  if (!Array.isArray(record.scopes)) return [];
  return [...new Set(record.scopes.filter((scope): scope is string => typeof scope === 'string' && scope !== ''))];
}

/** The spend ledger: a host service shared by the accounting filter, spend limits and /usage. */
export interface Ledger {
  /** Record one reply; false when that message id was already recorded. */
  record(entry: UsageRecord): Promise<boolean>;
  /** Every record in [from, to), oldest first (small sets; use scan or latest for large ones). */
  list(query: UsageQuery): Promise<UsageRecord[]>;
  /** Total USD (exact decimal string) a user spent in [from, to); one counter read for a UTC day or month. */
  spent(userId: string, from: number, to: number): Promise<string>;
  /**
   * Total USD recorded toward a shared cap scope (`g:<group>`, `m:<pattern>`, see spend-scopes.ts) in one UTC day or
   * month ([from, to) exactly; one counter read). Optional: a ledger that keeps no scope counters has none.
   */
  scopeSpent?(scope: string, from: number, to: number): Promise<string>;
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

/** How /usage groups records. */
export type UsageGroupBy = 'user' | 'model' | 'day';

/** Totals over a set of records; `cost` is an exact decimal string. */
export interface UsageTotals extends TokenCounts {
  records: number;
  cost: string;
  /** Records whose cost is an estimate or unknown (not from usage × price or the provider). */
  estimated: number;
  unpriced: number;
}

/** Which records a usage query covers: `from` inclusive, `to` exclusive (epoch ms); `model` matches the model or its priced id. */
export interface UsageQuery {
  from?: number;
  to?: number;
  userId?: string;
  model?: string;
  chatId?: string;
}

/** Totals of a query, and its groups when asked for (sorted by key). */
export interface UsageSummary {
  totals: UsageTotals;
  groups?: Array<{ key: string } & UsageTotals>;
}

/** One page of records, oldest first; `before` continues with the older ones when `more`. */
export interface UsagePage {
  records: UsageRecord[];
  more: boolean;
  before?: string;
}

/** Which daily aggregate: the day's totals (`all`, key ''), per user, or per priced model. */
export type DailyDimension = 'all' | 'user' | 'model';

/** One stored daily aggregate: a UTC day, a dimension and its key (user id, model id, or ''). */
export interface DailyRow {
  day: string;
  dimension: DailyDimension;
  key: string;
  totals: PartialTotals;
}

/** One usage field that was refused: where, what it said (clipped), and why. */
export interface RejectedUsage {
  /** The field as the backend named it (`prompt_tokens`, `cost`, `timings.prompt_n`). */
  field: string;
  part: UsagePart;
  /** The value as received, as text (at most 40 characters). */
  value: string;
  /** Out of USAGE_BOUNDS, or contradicting another count (more cached or cache-write tokens than the prompt, more reasoning than the completion that contains it, more 1-hour writes than writes). */
  reason:
    | 'not a number'
    | 'not finite'
    | 'negative'
    | 'above the bound'
    | 'more than the prompt'
    | 'more than the completion'
    | 'more than the cache writes';
}

/** Totals while being added up; `cost` stays an exact Decimal until the end. */
export interface PartialTotals extends TokenCounts {
  records: number;
  estimated: number;
  unpriced: number;
  cost: Decimal;
}

/** Which part of a record a usage field feeds. */
export type UsagePart = keyof TokenCounts | 'webSearches' | 'cost';
