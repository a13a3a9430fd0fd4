/**
 * The state layer every filter and the host use. Two real backends implement it:
 * SQLite (embedded, the default) and Redis (several replicas). Shaped by what the
 * features need, not a generic database wrapper:
 * - documents with optional TTL (session flags, last sequence sent, cached token counts, summaries, user valves);
 * - atomic counters (spend totals) and sliding windows (rate limits);
 * - append-only records with time-range queries, idempotent by record id (the spend ledger);
 * - compare-and-set and leases for one-writer jobs (pricing refresh);
 * - a change channel so replicas learn about valve updates without a restart.
 */

import type { UsageStore } from '../domain/usage/usage-store.js';
import type { StoreOutageLog } from '../core/util/store-outage.js';

/** Options for a document write. */
export interface SetOptions {
  /** Time to live in milliseconds; absent or 0 = no expiry. */
  ttlMs?: number;
}

/** Options of a capped-list push. */
export interface ListPushOptions {
  /** Most items the list keeps (the oldest fall off). */
  max: number;
  /** Time to live of the whole list in milliseconds, renewed by every push; absent or 0 = no expiry. */
  ttlMs?: number;
}

/** One push of `listPushMany`. */
export interface ListPush {
  key: string;
  item: string;
  options: ListPushOptions;
}

/** A sliding-window admission (`windowAdmit`): at most `limit` admissions in any `windowMs`. */
export interface WindowAdmitOptions {
  /** Most admissions the window holds (at least 1). */
  limit: number;
  /** The window's length in milliseconds (60,000 for "per minute"). */
  windowMs: number;
  /** The caller's clock, epoch ms: the admission's time, and the window is `(now - windowMs, now]`. */
  now: number;
}

/**
 * What `windowAdmit` decided: admitted (with the window's count, this one included), or refused with the time the
 * window has room again (when the admission that makes it full leaves it).
 */
export type WindowAdmission = { admitted: true; count: number } | { admitted: false; retryAt: number };

/** One record of an append-only stream (the ledger). */
export interface StreamRecord<T = Record<string, unknown>> {
  /** Caller-chosen unique id inside the stream (e.g. the Open WebUI message id); appends are idempotent by it. */
  id: string;
  /** Epoch milliseconds; range queries filter on it. */
  time: number;
  data: T;
}

/** A range query over a stream. `from` inclusive, `to` exclusive, both epoch ms. */
export interface RangeQuery {
  from?: number;
  to?: number;
  /** Maximum number of records, oldest first. */
  limit?: number;
}

/** A held lease; release it when the job is done (it also expires by itself). */
export interface Lease {
  readonly name: string;
  readonly token: string;
  release(): Promise<void>;
}

/** Health of a backend as shown in logs and /health. */
export interface StoreHealth {
  /** The backend's name; `memory` only names in-process test doubles (there is no memory backend). */
  backend: 'sqlite' | 'redis' | 'memory';
  /**
   * False while the store cannot take the ledger's writes: closed, disconnected, its last call timed out with no
   * answer since (a hung Redis), or ledger writes wait in the journal (`queued` > 0).
   */
  ok: boolean;
  detail?: string;
  /** Ledger writes accepted into the journal (store unreachable, or the write failed), waiting to be written. */
  queued?: number;
  /** The ledger's journal: records refused, and the room reserved for it on disk. */
  ledger?: LedgerHealth;
  /** Redis only: how it is reached (one node, a Sentinel-managed primary, a Cluster). */
  topology?: TopologyHealth;
}

/** What /health says of the ledger's journal. */
export interface LedgerHealth {
  /** Records refused since start: neither written nor journaled (their outlets answered 503). */
  refused: number;
  /** Why records are refused now: set by a refusal, cleared when a record is written or journaled again, or journaled records land (room again). */
  refusing?: string;
  /** The room reserved on disk for the journal (taken when its file cannot grow): size, bytes and entries in use. */
  reserve?: { bytes: number; used: number; entries: number };
}

/** The Redis topology as /health and /readyz report it. */
export interface TopologyHealth {
  kind: 'single' | 'sentinel' | 'cluster';
  /** Sentinel: the primary this replica writes to now (`host:port`), while connected. */
  primary?: string;
  /** Cluster: how many primaries the slot map knows. */
  primaries?: number;
}

/**
 * The state store. Every method is async and bounded in time: on Redis a call that
 * cannot complete within the configured timeout rejects with StateUnavailableError
 * (reads) or is queued (ledger appends), never hangs.
 */
export interface StateStore {
  /** `sqlite` or `redis`; `memory` only names in-process test doubles (there is no memory backend). */
  readonly backend: 'sqlite' | 'redis' | 'memory';
  /** The spend ledger with its counters (both real backends have one; createLedger needs it). */
  readonly usage?: UsageStore;
  /** The store's outage log (both real backends have their own; see StoreOutageLog). */
  readonly outage?: StoreOutageLog;

  /** Read a JSON document; undefined when absent or expired. */
  get<T = unknown>(key: string): Promise<T | undefined>;
  /** Read several documents in one round trip; result aligned with `keys`. */
  getMany<T = unknown>(keys: readonly string[]): Promise<(T | undefined)[]>;
  /** Write a JSON document (crash-safe: either the old or the new value survives). */
  set(key: string, value: unknown, options?: SetOptions): Promise<void>;
  /** Write several documents in one round trip / transaction. */
  setMany(entries: readonly { key: string; value: unknown; ttlMs?: number }[]): Promise<void>;
  /** Delete a document; true when something was deleted. */
  delete(key: string): Promise<boolean>;
  /** Delete several documents in one round trip / transaction; how many were there. */
  deleteMany(keys: readonly string[]): Promise<number>;
  /** Keys under a prefix (for listing per-user valves etc.); not for hot paths. */
  keys(prefix: string): Promise<string[]>;
  /**
   * Atomically replace `key` when its current JSON value deep-equals `expected`
   * (`undefined` = the key must be absent). Returns true when the write happened.
   */
  compareAndSet(key: string, expected: unknown, next: unknown, options?: SetOptions): Promise<boolean>;

  /**
   * Atomically put `item` at the head of the capped list `key` (an item already in it moves to the head), keep the
   * first `max` items and renew the list's TTL; returns the items that fell off its end. Replicas pushing at once
   * lose none of each other's items. Lists live apart from documents (`get` and `keys` do not see them).
   */
  listPush(key: string, item: string, options: ListPushOptions): Promise<string[]>;
  /**
   * Several `listPush`es, in order, as one atomic step (one SQLite transaction, one Redis script; on a Redis Cluster
   * one script per list, so atomic per list): all or none land.
   * Returns, aligned with `pushes`, the items each push made fall off its list.
   */
  listPushMany(pushes: readonly ListPush[]): Promise<string[][]>;
  /** The first `limit` items of a capped list, head (newest) first; none when absent or expired. */
  listRange(key: string, limit?: number): Promise<string[]>;

  /**
   * Sliding-window admission, one atomic step: drop the window's admissions older than `windowMs` before `now`, then
   * admit (record `now`) when fewer than `limit` remain, else refuse and say when the oldest that keeps it full leaves.
   * Refusals are not recorded. The window keeps at most `limit` times and expires `windowMs` after its last admission.
   * Replicas admitting at once never admit more than `limit` in any `windowMs` (as their clocks tell). Windows live
   * apart from documents and lists (`get`, `keys` and `listRange` do not see them).
   */
  windowAdmit(key: string, options: WindowAdmitOptions): Promise<WindowAdmission>;

  /** Atomically add `by` (may be fractional or negative) and return the new value. TTL applies when the counter is created. */
  increment(key: string, by?: number, options?: SetOptions): Promise<number>;

  /** Append a record to a stream; false (and no change) when a record with that id already exists. */
  append<T extends Record<string, unknown>>(stream: string, record: StreamRecord<T>): Promise<boolean>;
  /** Records of a stream in time order (ties by insertion order). */
  range<T extends Record<string, unknown>>(stream: string, query?: RangeQuery): Promise<StreamRecord<T>[]>;

  /** Try to take a named lease for `ttlMs`; undefined when another holder has it. */
  acquireLease(name: string, ttlMs: number): Promise<Lease | undefined>;

  /** Tell other replicas (and this one) that something changed. */
  publish(channel: string, message: string): Promise<void>;
  /** Listen for `publish` on a channel; returns an unsubscribe function. */
  subscribe(channel: string, handler: (message: string) => void): () => void;

  health(): StoreHealth;
  close(): Promise<void>;
}
