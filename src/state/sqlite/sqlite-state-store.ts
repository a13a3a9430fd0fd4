import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { Logger } from '../../core/util/logger.js';
import { StateUnavailableError } from '../../core/errors/index.js';
import { LocalChannel } from '../local-channel.js';
import { decodeJson, encodeJson, expiryFrom, storedEquals } from '../json-value.js';
import { StateValueError } from '../state-value-error.js';
import type {
  Lease,
  ListPush,
  ListPushOptions,
  RangeQuery,
  SetOptions,
  StateStore,
  StoreHealth,
  StreamRecord,
  WindowAdmission,
  WindowAdmitOptions,
} from '../types.js';
import { admitAt, windowBounds } from '../sliding-window.js';
import { prepareStatements, type DocumentRow, type SqliteStatements } from './sqlite-statements.js';
import { SqliteUsageStore } from './sqlite-usage-store.js';
import { journalReasons } from '../journal/ledger-queue.js';
import { UsageQueryThread } from './usage-query-thread.js';
import { StoreOutageLog } from '../../core/util/store-outage.js';
import { errorMessage } from '../../core/util/error-message.js';

/** Options of the embedded backend. */
export interface SqliteStateStoreOptions {
  /** An open, migrated database (see openSqliteDatabase). */
  db: Database.Database;
  file: string;
  logger: Logger;
  /** This store's outage log (default: one of its own; see StoreOutageLog). */
  outage?: StoreOutageLog;
  /** How often expired rows are purged in the background; default 60 s. */
  purgeIntervalMs?: number;
  /**
   * The ledger journal (LEDGER_JOURNAL_PATH): a record whose transaction fails (constraint, full disk, I/O error) is
   * accepted there and retried until it lands (tried every `journalRetryMs`, default 1000; a record failing on its own
   * waits 1 s, then doubling up to 60 s). Default: in memory.
   */
  journalFile?: string;
  /** Most records the journal holds (LEDGER_QUEUE_MAX; default 1,000,000). */
  journalMax?: number;
  journalRetryMs?: number;
  /** Bytes reserved on disk for the journal (LEDGER_JOURNAL_RESERVE_KB; default 4 MiB). */
  journalReserveBytes?: number;
}

/**
 * The embedded state backend (the default): one SQLite file, WAL, every write in a
 * transaction. Counters live in the documents table; pub/sub is in-process only, so
 * several processes on one file are not supported (use Redis for replicas).
 */
export class SqliteStateStore implements StateStore {
  readonly backend = 'sqlite' as const;
  readonly usage: SqliteUsageStore;
  /** This store's outages; the StateUnavailableErrors it raises are claimed by it. */
  readonly outage: StoreOutageLog;
  private readonly statements: SqliteStatements;
  private readonly channel: LocalChannel;
  private readonly purgeTimer: NodeJS.Timeout;
  private sequence: number;
  private closed = false;

  constructor(private readonly options: SqliteStateStoreOptions) {
    this.statements = prepareStatements(options.db);
    this.outage = options.outage ?? new StoreOutageLog();
    this.outage.useLogger(options.logger);
    this.sequence = this.statements.maxSeq.get()?.seq ?? 0;
    // Long ledger reads (/usage) run in a worker thread on their own connection; an in-memory database has no file to share.
    const queries = options.db.memory ? undefined : new UsageQueryThread(options.db.name);
    this.usage = new SqliteUsageStore(options.db, (step) => this.run(step), {
      queries,
      logger: options.logger,
      outage: this.outage,
      journal: {
        file: options.journalFile,
        max: options.journalMax ?? 1_000_000,
        retryMs: options.journalRetryMs,
        reserveBytes: options.journalReserveBytes,
      },
    });
    this.channel = new LocalChannel((error, channel) =>
      options.logger.error({ err: error, channel }, 'state subscriber threw'),
    );
    this.purgeTimer = setInterval(() => this.purgeExpired(), options.purgeIntervalMs ?? 60_000);
    this.purgeTimer.unref();
  }

  async get<T = unknown>(key: string): Promise<T | undefined> {
    return this.run(() => decodeJson<T>(this.readLive(key, Date.now())?.value));
  }

  async getMany<T = unknown>(keys: readonly string[]): Promise<(T | undefined)[]> {
    if (keys.length === 0) return [];
    return this.run(() => {
      const now = Date.now();
      const found = new Map<string, string>();
      let expired = false;
      // One statement for the whole batch; expired rows are skipped here and deleted below.
      for (const row of this.statements.getDocuments.iterate(JSON.stringify(keys))) {
        if (row.expires_at !== null && row.expires_at <= now) expired = true;
        else found.set(row.key, row.value);
      }
      if (expired) for (const key of keys) if (!found.has(key)) this.statements.deleteExpiredDocument.run(key, now);
      return keys.map((key) => decodeJson<T>(found.get(key)));
    });
  }

  async set(key: string, value: unknown, options?: SetOptions): Promise<void> {
    const text = encodeJson(key, value);
    this.run(() => this.statements.putDocument.run(key, text, expiryFrom(options?.ttlMs, Date.now())));
  }

  async setMany(entries: readonly { key: string; value: unknown; ttlMs?: number }[]): Promise<void> {
    const rows = entries.map((entry) => [entry.key, encodeJson(entry.key, entry.value), entry.ttlMs] as const);
    this.run(() =>
      this.options.db.transaction(() => {
        const now = Date.now();
        for (const [key, text, ttlMs] of rows) this.statements.putDocument.run(key, text, expiryFrom(ttlMs, now));
      })(),
    );
  }

  async delete(key: string): Promise<boolean> {
    return this.run(() => {
      const live = this.readLive(key, Date.now()) !== undefined;
      this.statements.deleteDocument.run(key);
      return live;
    });
  }

  async deleteMany(keys: readonly string[]): Promise<number> {
    if (keys.length === 0) return 0;
    return this.run(() =>
      this.options.db.transaction(() => {
        const now = Date.now();
        let deleted = 0;
        for (const key of keys) {
          if (this.readLive(key, now) !== undefined) deleted += 1;
          this.statements.deleteDocument.run(key);
        }
        return deleted;
      })(),
    );
  }

  async keys(prefix: string): Promise<string[]> {
    return this.run(() => {
      const found: string[] = [];
      // BINARY collation keeps every key that starts with `prefix` in one contiguous run.
      for (const row of this.statements.documentsFrom.iterate(prefix, Date.now())) {
        if (!row.key.startsWith(prefix)) break;
        found.push(row.key);
      }
      return found;
    });
  }

  async compareAndSet(key: string, expected: unknown, next: unknown, options?: SetOptions): Promise<boolean> {
    const text = encodeJson(key, next);
    return this.run(() =>
      this.options.db.transaction(() => {
        const now = Date.now();
        if (!storedEquals(this.readLive(key, now)?.value, expected)) return false;
        this.statements.putDocument.run(key, text, expiryFrom(options?.ttlMs, now));
        return true;
      })(),
    );
  }

  async listPush(key: string, item: string, options: ListPushOptions): Promise<string[]> {
    return this.run(() => this.options.db.transaction(() => this.pushToList(key, item, options, Date.now()))());
  }

  async listPushMany(pushes: readonly ListPush[]): Promise<string[][]> {
    if (pushes.length === 0) return [];
    return this.run(() =>
      this.options.db.transaction(() => {
        const now = Date.now();
        return pushes.map((push) => this.pushToList(push.key, push.item, push.options, now));
      })(),
    );
  }

  /** One capped-list push, inside the caller's transaction; the items that fell off, newest first. */
  private pushToList(key: string, item: string, options: ListPushOptions, now: number): string[] {
    const max = Math.max(1, Math.floor(options.max));
    const size = this.liveListSize(key, now);
    const isNew = this.statements.hasListItem.get(key, item) === undefined;
    const { seq } = this.statements.nextListSeq.get(key)!;
    this.statements.putListItem.run(key, item, seq);
    const over = size + (isNew ? 1 : 0) - max;
    // The oldest first from the index, returned newest first (the order of the list).
    const evicted = over > 0 ? this.statements.oldestListItems.all(key, over).map((row) => row.item) : [];
    for (const gone of evicted) this.statements.deleteListItem.run(key, gone);
    this.statements.putListMeta.run(key, Math.min(max, size + (isNew ? 1 : 0)), expiryFrom(options.ttlMs, now));
    return evicted.reverse();
  }

  async listRange(key: string, limit?: number): Promise<string[]> {
    return this.run(() => {
      if (this.liveListSize(key, Date.now()) === 0) return [];
      const count = limit === undefined ? -1 : Math.max(0, Math.floor(limit));
      return this.statements.listItemsFrom.all(key, count, 0).map((row) => row.item);
    });
  }

  async windowAdmit(key: string, options: WindowAdmitOptions): Promise<WindowAdmission> {
    return this.run(() =>
      this.options.db.transaction(() => {
        const row = this.statements.windowTimes.get(key);
        const stored = row === undefined ? [] : (JSON.parse(row.times) as number[]);
        const { admission, times } = admitAt(stored, options);
        // An admission renews the window's life (windowMs as the store's clock runs); a refusal only drops the times
        // that left it or that a lowered limit no longer counts (as the Redis script does).
        if (admission.admitted)
          this.statements.putWindow.run(key, JSON.stringify(times), Date.now() + windowBounds(options).windowMs);
        else if (row !== undefined && times.length !== stored.length)
          this.statements.putWindow.run(key, JSON.stringify(times), row.expires_at);
        return admission;
      })(),
    );
  }

  async increment(key: string, by = 1, options?: SetOptions): Promise<number> {
    return this.run(() =>
      this.options.db.transaction(() => {
        const now = Date.now();
        const row = this.readLive(key, now);
        const current = row === undefined ? 0 : (JSON.parse(row.value) as unknown);
        if (typeof current !== 'number') throw new StateValueError(`Cannot increment "${key}": it holds a non-number`);
        const value = current + by;
        const expiresAt = row === undefined ? expiryFrom(options?.ttlMs, now) : row.expires_at;
        this.statements.putDocument.run(key, JSON.stringify(value), expiresAt);
        return value;
      })(),
    );
  }

  async append<T extends Record<string, unknown>>(stream: string, record: StreamRecord<T>): Promise<boolean> {
    const data = encodeJson(`${stream}/${record.id}`, record.data);
    return this.run(() => {
      const result = this.statements.insertRecord.run(stream, record.id, record.time, this.sequence + 1, data);
      if (result.changes === 0) return false;
      this.sequence += 1;
      return true;
    });
  }

  async range<T extends Record<string, unknown>>(stream: string, query: RangeQuery = {}): Promise<StreamRecord<T>[]> {
    const from = query.from ?? -Infinity;
    const to = query.to ?? Infinity;
    const limit = query.limit ?? -1;
    return this.run(() =>
      this.statements.rangeRecords
        .all(stream, from, to, limit)
        .map((row) => ({ id: row.id, time: row.time, data: JSON.parse(row.data) as T })),
    );
  }

  async acquireLease(name: string, ttlMs: number): Promise<Lease | undefined> {
    const token = randomUUID();
    const taken = this.run(() =>
      this.options.db.transaction(() => {
        const now = Date.now();
        this.statements.deleteExpiredLease.run(name, now);
        return this.statements.insertLease.run(name, token, now + ttlMs).changes === 1;
      })(),
    );
    if (!taken) return undefined;
    return {
      name,
      token,
      release: async () => {
        this.run(() => this.statements.releaseLease.run(name, token));
      },
    };
  }

  async publish(channel: string, message: string): Promise<void> {
    this.assertOpen();
    this.channel.publish(channel, message);
  }

  subscribe(channel: string, handler: (message: string) => void): () => void {
    this.assertOpen();
    return this.channel.subscribe(channel, handler);
  }

  health(): StoreHealth {
    const queued = this.usage.journalSize;
    const ledger = this.usage.ledgerHealth;
    const reasons = [
      ...(queued > 0 ? [`${queued} ledger records wait in the journal for a retry`] : []),
      ...journalReasons(ledger),
    ];
    return {
      backend: 'sqlite',
      ok: !this.closed && queued === 0 && !ledger.refusing,
      detail: `${this.options.file}${this.closed ? ' closed' : ''}${reasons.map((reason) => `; ${reason}`).join('')}`,
      queued,
      ledger,
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.usage.writeQueued(); // records accepted in this last loop turn are not lost
    await this.usage.retryJournal().catch(() => false); // what still fails stays in the journal for the next start
    this.closed = true;
    this.outage.reset();
    clearInterval(this.purgeTimer);
    this.channel.clear();
    await this.usage.close();
    this.options.db.close();
  }

  /** Delete expired documents and leases now (also runs on a timer). */
  purgeExpired(): void {
    if (this.closed) return;
    try {
      const now = Date.now();
      this.statements.purgeDocuments.run(now);
      this.statements.purgeLists.run(now);
      this.statements.purgeListMeta.run(now);
      this.statements.purgeWindows.run(now);
      this.statements.purgeLeases.run(now);
    } catch (error) {
      this.options.logger.warn({ err: error, file: this.options.file }, 'state purge failed');
    }
  }

  /** The row for `key` unless absent or expired (an expired row is deleted on the way). */
  /** A capped list's size; a list whose TTL has passed is deleted first and has none. */
  private liveListSize(key: string, now: number): number {
    const row = this.statements.listMeta.get(key);
    if (row === undefined) return 0;
    if (row.expires_at === null || row.expires_at > now) return row.size;
    this.statements.deleteList.run(key);
    this.statements.deleteListMeta.run(key);
    return 0;
  }

  private readLive(key: string, now: number): DocumentRow | undefined {
    const row = this.statements.getDocument.get(key);
    if (row === undefined) return undefined;
    if (row.expires_at !== null && row.expires_at <= now) {
      this.statements.deleteExpiredDocument.run(key, now);
      return undefined;
    }
    return row;
  }

  private assertOpen(): void {
    if (this.closed) throw this.outage.claim(new StateUnavailableError(`State store ${this.options.file} is closed`));
  }

  /** Run a database step; SQLite failures (disk full, I/O error, busy) become StateUnavailableError. */
  private run<T>(step: () => T): T {
    this.assertOpen();
    try {
      const result = step();
      this.outage.answered();
      return result;
    } catch (error) {
      this.outage.failed();
      if (error instanceof StateValueError || error instanceof StateUnavailableError) throw this.outage.claim(error);
      throw this.outage.claim(
        new StateUnavailableError(`SQLite state ${this.options.file}: ${errorMessage(error)}`, { cause: error }),
      );
    }
  }
}
