import type {
  UsageGroupBy,
  UsageRecord,
  DailyDimension,
  DailyRow,
  UsageQuery,
  UsageSummary,
  UsagePage,
} from './types.js';
import type { SpendHolds } from './spend-reservations.js';
export type { UsageQuery, UsageSummary, UsagePage } from './types.js';

/**
 * Where the ledger lives, implemented by each state backend. A record and the spend
 * counters of its user are written together and atomically (one SQLite transaction, one
 * Redis script), idempotent by message id: a repeated id changes nothing, so spend checks
 * read one counter (O(1) in the number of records) and can never disagree with the records.
 * Queries work in bounded chunks and yield to the event loop between them.
 */
export interface UsageStore {
  /** Spend holds of the spend-limit filter, checked against the same counters (see spend-reservations.ts). */
  readonly holds?: SpendHolds;
  /** Add a record and its spend; false when that message id is already recorded. */
  record(record: UsageRecord): Promise<boolean>;
  /** Exact USD a user spent in one counter period (`d:YYYY-MM-DD` or `m:YYYY-MM`, see periodKey). */
  spent(userId: string, periodKey: string): Promise<string>;
  /** Exact USD recorded toward a shared cap scope (`g:<group>`, `m:<pattern>`, see spend-scopes.ts) in one counter period. */
  scopeSpent(scope: string, periodKey: string): Promise<string>;
  /** Totals (and groups) of the matching records, aggregated in the store. */
  summarize(query: UsageQuery, groupBy?: UsageGroupBy): Promise<UsageSummary>;
  /** The newest `limit` matching records (before the `before` cursor of an earlier page). */
  latest(query: UsageQuery, limit: number, before?: string): Promise<UsagePage>;
  /**
   * The daily aggregates of one dimension for the UTC days in [fromDay, toDay) (`YYYY-MM-DD`),
   * kept up to date by `record` in the same atomic write: reads a few rows per day, never the records.
   */
  daily(fromDay: string, toDay: string, dimension: DailyDimension): Promise<DailyRow[]>;
  /** Every matching record, oldest first, in chunks (the event loop runs between chunks). */
  scan(query: UsageQuery, visit: (chunk: UsageRecord[]) => void | Promise<void>): Promise<void>;
}

/** Records per chunk of a scan (each is parsed in JS: small, so one chunk blocks the event loop ~ms). */
export const USAGE_CHUNK = 250;
/** Rows per chunk of an aggregation done by the database (SQL GROUP BY over an index range). */
export const SUMMARY_CHUNK = 1000;

/** Let other work (requests) run between two chunks of a long query. */
export const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** True when a record matches the query's model and chat (user and time are applied by the store's index). */
export function matchesQuery(record: UsageRecord, query: UsageQuery): boolean {
  if (query.from !== undefined && record.time < query.from) return false;
  if (query.to !== undefined && record.time >= query.to) return false;
  if (query.userId !== undefined && record.userId !== query.userId) return false;
  if (query.model !== undefined && record.model !== query.model && record.pricedAs !== query.model) return false;
  return query.chatId === undefined || record.chatId === query.chatId;
}
