import type Database from 'better-sqlite3';
import { formatDecimal } from '../../domain/pricing/decimal.js';
import { periodKey } from '../../domain/usage/budget-periods.js';
import { joinCost, splitCost } from '../../domain/usage/cost-parts.js';
import {
  dailyTargets,
  recordTotals,
  totalsFromColumns,
  utcDay,
  type CounterColumns,
  type DailyDimension,
  type DailyRow,
} from '../../domain/usage/daily-usage.js';
import type { UsageGroupBy } from '../../domain/usage/summarize-usage.js';
import type { UsageRecord } from '../../domain/usage/types.js';
import { UsageAccumulator } from '../../domain/usage/usage-accumulator.js';
import {
  SUMMARY_CHUNK,
  USAGE_CHUNK,
  yieldToEventLoop,
  type UsagePage,
  type UsageQuery,
  type UsageStore,
  type UsageSummary,
} from '../../domain/usage/usage-store.js';
import { parseCursor, type Cursor } from '../../domain/usage/usage-cursor.js';
import { usageWhere } from './usage-where.js';
import { QueryThreadUnavailable, type UsageQueryThread } from './usage-query-thread.js';
import { storedRecord } from '../../domain/usage/stored-record.js';
import { StateUnavailableError } from '../../core/errors/index.js';
import type { Logger } from '../../core/util/logger.js';
import type { StoreOutageLog } from '../../core/util/store-outage.js';
import { journalHealth, LedgerQueue } from '../redis/ledger-queue.js';
import type { LedgerHealth } from '../types.js';
import { SqliteSpendHolds } from './sqlite-spend-holds.js';
import { errorMessage } from '../../core/util/error-message.js';

/** SQLite result codes that mean the database as a whole cannot write now (not one record's fault). */
const DATABASE_WIDE = /^SQLITE_(FULL|IOERR|BUSY|LOCKED|READONLY|CANTOPEN|NOMEM|PROTOCOL|NOTADB|CORRUPT)/;

/** The SQLite code of an error (or of its cause: run() wraps them in StateUnavailableError). */
function sqliteCode(error: unknown): string {
  const own = (error as { code?: unknown })?.code;
  if (typeof own === 'string' && own.startsWith('SQLITE_')) return own;
  const cause = (error as { cause?: { code?: unknown } })?.cause?.code;
  return typeof cause === 'string' ? cause : '';
}

/** Options of a SqliteUsageStore. */
export interface SqliteUsageStoreOptions {
  /** A read-only connection (the query worker): no import of older data. */
  readOnly?: boolean;
  /** Answer summaries, pages and scans in this worker thread instead of on the calling thread. */
  queries?: UsageQueryThread;
  /** The worker answers from this many records in the ledger on (default QUERY_THREAD_MIN_RECORDS). */
  threadMinRecords?: number;
  /**
   * Where a record goes when its transaction fails (a constraint, a full disk, an I/O error): accepted there and
   * written to the ledger by a retry every `journalRetryMs` (default 1000) until it lands; kept across restarts when
   * the journal is a file. Without it such a record is the caller's error.
   */
  journal?: { file?: string; max: number; retryMs?: number; reserveBytes?: number };
  /** For the journal's lines (one when records start going there, one when they have landed). */
  logger?: Logger;
  /** The state store's outage log: claims the StateUnavailableErrors raised here (see StoreOutageLog.claim). */
  outage?: StoreOutageLog;
}

/**
 * Below this many records a ledger is read on the calling thread: a summary of 20k records takes tens of
 * milliseconds and yields between chunks, while the worker costs a thread that loads the TypeScript loader
 * (about a second of CPU and tens of MB) the first time.
 */
export const QUERY_THREAD_MIN_RECORDS = 20_000;

const GROUP_EXPRESSIONS: Record<UsageGroupBy | 'none', string> = {
  user: 'user_id',
  model: 'model_key',
  day: "strftime('%Y-%m-%d', time / 1000, 'unixepoch')",
  none: "''",
};
const FIRST: Cursor = { time: Number.MIN_SAFE_INTEGER, seq: 0 };
const LAST: Cursor = { time: Number.MAX_SAFE_INTEGER, seq: 0 };

interface DailyTableRow extends CounterColumns {
  day: string;
  key: string;
}

interface GroupRow extends CounterColumns {
  key: string;
}

/** A record waiting for the next group commit, with its caller's promise. */
interface QueuedRecord {
  record: UsageRecord;
  resolve: (written: boolean) => void;
  reject: (error: unknown) => void;
}

/** A ledger row as `latest` and `scan` read it. */
interface DataRow {
  seq: number;
  time: number;
  data: string;
}

/**
 * The ledger on SQLite: a `ledger` table with indexed user, chat, model and time columns and
 * the cost as two integers, plus `ledger_spend` counters per user and UTC day / month. A
 * record and its counters are one transaction (INSERT OR IGNORE by message id first: a repeat
 * adds nothing). Aggregation is SQL GROUP BY over ranges of SUMMARY_CHUNK rows walked by
 * (time, seq) on an index; scans read USAGE_CHUNK records at a time; both yield to the event
 * loop between chunks.
 *
 * Group commit: the records of one event-loop turn are written in one transaction (a proxy at 50
 * concurrent streams finishes many replies per turn; a commit costs more than the rows), and each
 * `record` resolves once its transaction committed. Every read writes the queue first, so a read
 * always sees the records recorded before it.
 */
export class SqliteUsageStore implements UsageStore {
  /** Spend holds (absent on the query worker's read-only connection). */
  readonly holds?: SqliteSpendHolds;
  private readonly statements = new Map<string, Database.Statement>();
  private readonly insert: Database.Statement;
  private readonly addSpend: Database.Statement;
  private readonly readSpend: Database.Statement;
  private readonly addDaily: Database.Statement;
  private readonly readDaily: Database.Statement;
  private readonly recordTransaction: (record: UsageRecord) => boolean;
  private readonly batchTransaction: (batch: QueuedRecord[]) => boolean[];
  private readonly lastSeq: Database.Statement;
  private queued: QueuedRecord[] = [];
  private readonly journal: LedgerQueue | undefined;
  private readonly journalTimer: NodeJS.Timeout | undefined;
  /** Records journaled since the journal was last empty (for its two log lines). */
  private journaled = 0;

  constructor(
    private readonly db: Database.Database,
    private readonly run: <T>(step: () => T) => T,
    private readonly options: SqliteUsageStoreOptions = {},
  ) {
    this.insert = db.prepare(
      `INSERT OR IGNORE INTO ledger (id, time, user_id, chat_id, model, priced_as, model_key, prompt, completion, cached,
         cache_write, reasoning, total, cost_hi, cost_lo, cost_source, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.addSpend = db.prepare(
      `INSERT INTO ledger_spend (user_id, period, hi, lo) VALUES (?, ?, ?, ?)
       ON CONFLICT (user_id, period) DO UPDATE SET hi = hi + excluded.hi, lo = lo + excluded.lo`,
    );
    this.readSpend = db.prepare('SELECT hi, lo FROM ledger_spend WHERE user_id = ? AND period = ?').safeIntegers(true);
    this.addDaily = db.prepare(
      `INSERT INTO ledger_daily (day, dimension, key, records, prompt, completion, cached, cache_write, reasoning, total,
         estimated, unpriced, hi, lo) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (dimension, day, key) DO UPDATE SET records = records + excluded.records,
         prompt = prompt + excluded.prompt, completion = completion + excluded.completion,
         cached = cached + excluded.cached, cache_write = cache_write + excluded.cache_write,
         reasoning = reasoning + excluded.reasoning, total = total + excluded.total,
         estimated = estimated + excluded.estimated, unpriced = unpriced + excluded.unpriced,
         hi = hi + excluded.hi, lo = lo + excluded.lo`,
    );
    this.readDaily = db
      .prepare('SELECT * FROM ledger_daily WHERE dimension = ? AND day >= ? AND day < ? ORDER BY day, key')
      .safeIntegers(true);
    this.recordTransaction = db.transaction((record: UsageRecord) => this.insertRecord(record));
    this.batchTransaction = db.transaction((batch: QueuedRecord[]) =>
      batch.map(({ record }) => this.insertRecord(record)),
    );
    this.lastSeq = db.prepare('SELECT max(seq) AS seq FROM ledger');
    if (!options.readOnly) this.importStreams();
    if (options.journal && !options.readOnly) {
      this.journal = this.openJournal(options.journal);
      this.journalTimer = setInterval(() => {
        if (this.journal!.size > 0) void this.retryJournal();
      }, options.journal.retryMs ?? 1000);
      this.journalTimer.unref();
    }
    if (!options.readOnly) this.holds = new SqliteSpendHolds(db, run, () => this.writeQueued());
  }

  /** Stop the query worker, if any (and the journal's retries: what it still holds stays there for the next start). */
  async close(): Promise<void> {
    if (this.journalTimer) clearInterval(this.journalTimer);
    this.journal?.close();
    await this.options.queries?.close();
  }

  /** Records accepted into the journal after their transaction failed, waiting for a retry. */
  get journalSize(): number {
    return this.journal?.size ?? 0;
  }

  /** Records refused and the journal's reserved room, for /health. */
  get ledgerHealth(): LedgerHealth {
    return this.journal ? journalHealth(this.journal) : { refused: 0 };
  }

  /** Write what the journal holds into the ledger now (also every second while it holds something); true when empty. */
  retryJournal(): Promise<boolean> {
    const journal = this.journal;
    if (!journal || journal.size === 0) return Promise.resolve(true);
    return journal.flush(async (item) => this.run(() => this.recordTransaction(JSON.parse(item.json) as UsageRecord)));
  }

  async record(record: UsageRecord): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.queued.push({ record, resolve, reject });
      if (this.queued.length === 1) setImmediate(() => this.writeQueued());
    });
  }

  /**
   * Write the queued records now: one transaction for all; when it fails (a full disk, a bad record), one
   * transaction per record, so each caller gets its own answer or error. The state store calls it before it closes.
   */
  writeQueued(): void {
    if (this.queued.length === 0) return;
    const batch = this.queued;
    this.queued = [];
    let written: boolean[] | undefined;
    try {
      written = this.run(() => this.batchTransaction(batch));
    } catch {
      written = undefined;
    }
    if (written) this.journal?.accepted();
    for (const [index, entry] of batch.entries()) {
      if (written) {
        entry.resolve(written[index]!);
        continue;
      }
      try {
        entry.resolve(this.run(() => this.recordTransaction(entry.record)));
        this.journal?.accepted();
      } catch (error) {
        try {
          entry.resolve(this.toJournal(entry.record, error));
        } catch (journalError) {
          entry.reject(journalError);
        }
      }
    }
  }

  private openJournal(options: { file?: string; max: number; retryMs?: number; reserveBytes?: number }): LedgerQueue {
    const logger = this.options.logger;
    const every = options.retryMs ?? 1000;
    const journal: LedgerQueue = new LedgerQueue({
      max: options.max,
      file: options.file,
      reserveBytes: options.reserveBytes,
      // A failure of the whole database (full disk, I/O error, locked, read-only) ends this retry: the next one comes
      // in a second (no need to try every record against a full disk). Anything else (a constraint) is the record's
      // own: it waits for the next retry and the others land.
      isTransient: (error) => DATABASE_WIDE.test(sqliteCode(error)),
      onFull: (max) =>
        logger?.error(
          { backend: 'sqlite', queueMax: max },
          `LEDGER JOURNAL FULL: ${max} ledger records are waiting for the SQLite ledger; further records are refused (raise LEDGER_QUEUE_MAX or fix the database)`,
        ),
      onHeld: (item, error) => {
        this.journaled += 1;
        if (this.journaled > 1) return; // one line per episode, the next when the journal is empty again
        logger?.warn(
          { backend: 'sqlite', journal: journal.file, id: item.id, err: errorMessage(error) },
          `SQLite ledger write failed (${errorMessage(error)}); records are kept in the journal ${journal.file} and retried until they land (a failure of the whole database every ${every} ms, a record's own after 1 s, then doubling up to 60 s)`,
        );
      },
      onReleased: (count) => {
        if (journal.size > 0) return;
        logger?.info(
          { backend: 'sqlite', journaled: this.journaled, written: count },
          `the ${this.journaled} journaled ledger records are written to SQLite; the journal is empty`,
        );
        this.journaled = 0;
      },
    });
    if (journal.size > 0)
      logger?.warn(
        { backend: 'sqlite', journal: journal.file, queued: journal.size },
        `${journal.size} ledger records from an earlier run are in the journal ${journal.file}; writing them to SQLite`,
      );
    return journal;
  }

  /** Accept a record whose transaction failed into the journal (retried later); throws when there is none or it is full. */
  private toJournal(record: UsageRecord, error: unknown): boolean {
    const journal = this.journal;
    if (!journal) throw error;
    let pushed: boolean;
    try {
      pushed = journal.push(
        { stream: 'ledger', id: record.messageId, time: record.time, json: JSON.stringify(record) },
        { error },
      );
    } catch (journalError) {
      throw this.claim(
        new StateUnavailableError(
          `Ledger write failed (${errorMessage(error)}) and the journal ${journal.file} refused record ${record.messageId}: ${errorMessage(journalError)}`,
          { cause: journalError },
        ),
      );
    }
    if (!pushed)
      throw this.claim(
        new StateUnavailableError(
          `Ledger write failed (${errorMessage(error)}) and the journal is full; record ${record.messageId} was not accepted`,
        ),
      );
    return true;
  }

  async spent(userId: string, key: string): Promise<string> {
    this.writeQueued();
    return this.run(() => {
      const row = this.readSpend.get(userId, key) as { hi: bigint; lo: bigint } | undefined;
      return formatDecimal(joinCost(row?.hi, row?.lo));
    });
  }

  async daily(fromDay: string, toDay: string, dimension: DailyDimension): Promise<DailyRow[]> {
    this.writeQueued();
    // At most a few rows per day and key, read from the primary key's range: cheap enough for the calling thread.
    const rows = this.run(() => this.readDaily.all(dimension, fromDay, toDay) as DailyTableRow[]);
    return rows.map((row) => ({ day: row.day, dimension, key: row.key, totals: totalsFromColumns(row) }));
  }

  async summarize(query: UsageQuery, groupBy?: UsageGroupBy): Promise<UsageSummary> {
    this.writeQueued();
    if (this.threadUsable())
      return this.viaThread(this.options.queries!.call('summarize', [query, groupBy]), () =>
        this.summarize(query, groupBy),
      );
    const where = usageWhere(query);
    // Step 1 finds where a chunk ends on the index alone; step 2 aggregates exactly that range in SQL.
    const boundary = this.statement(
      `SELECT time, seq FROM ledger WHERE ${where.sql} AND (time, seq) > (?, ?) ORDER BY time, seq LIMIT 1 OFFSET ${SUMMARY_CHUNK - 1}`,
    );
    const aggregate = this.statement(
      `SELECT ${GROUP_EXPRESSIONS[groupBy ?? 'none']} AS key, count(*) AS records, sum(prompt) AS prompt, sum(completion) AS completion,
        sum(cached) AS cached, sum(cache_write) AS cache_write, sum(reasoning) AS reasoning, sum(total) AS total,
        sum(cost_hi) AS hi, sum(cost_lo) AS lo, sum(cost_source = 'estimated') AS estimated, sum(cost_source = 'unpriced') AS unpriced
      FROM ledger WHERE ${where.sql} AND (time, seq) > (?, ?) AND (time, seq) <= (?, ?) GROUP BY key`,
      true,
    );
    const accumulator = new UsageAccumulator(groupBy);
    let cursor = FIRST;
    for (;;) {
      const end = this.run(() => boundary.get(...where.params, cursor.time, cursor.seq) as Cursor | undefined);
      const upTo = end ?? LAST;
      const rows = this.run(
        () => aggregate.all(...where.params, cursor.time, cursor.seq, upTo.time, upTo.seq) as GroupRow[],
      );
      for (const row of rows) accumulator.addPartial(row.key, totalsFromColumns(row));
      if (!end) break;
      cursor = end;
      await yieldToEventLoop();
    }
    return accumulator.summary();
  }

  async latest(query: UsageQuery, limit: number, before?: string): Promise<UsagePage> {
    this.writeQueued();
    if (this.threadUsable()) {
      if (before !== undefined) parseCursor(before); // a bad cursor is the caller's 400, before any thread hop
      return this.viaThread(this.options.queries!.call('latest', [query, limit, before]), () =>
        this.latest(query, limit, before),
      );
    }
    const where = usageWhere(query);
    const start = before === undefined ? LAST : parseCursor(before);
    const statement = this.statement(
      `SELECT seq, time, data FROM ledger WHERE ${where.sql} AND (time, seq) < (?, ?) ORDER BY time DESC, seq DESC LIMIT ?`,
    );
    const rows = this.run(() => statement.all(...where.params, start.time, start.seq, limit + 1) as DataRow[]);
    const page = rows.slice(0, limit);
    const oldest = page.at(-1);
    const more = rows.length > limit;
    return {
      records: page.reverse().map((row) => JSON.parse(row.data) as UsageRecord),
      more,
      ...(more && oldest ? { before: `${oldest.time}.${oldest.seq}` } : {}),
    };
  }

  async scan(query: UsageQuery, visit: (chunk: UsageRecord[]) => void | Promise<void>): Promise<void> {
    this.writeQueued();
    if (this.threadUsable())
      return this.viaThread(this.options.queries!.call('scan', [query], visit), () => this.scan(query, visit));
    const where = usageWhere(query);
    const statement = this.statement(
      `SELECT seq, time, data FROM ledger WHERE ${where.sql} AND (time, seq) > (?, ?) ORDER BY time, seq LIMIT ?`,
    );
    let cursor = FIRST;
    for (;;) {
      const rows = this.run(() => statement.all(...where.params, cursor.time, cursor.seq, USAGE_CHUNK) as DataRow[]);
      if (rows.length > 0) await visit(rows.map((row) => JSON.parse(row.data) as UsageRecord));
      if (rows.length < USAGE_CHUNK) return;
      const last = rows.at(-1)!;
      cursor = { time: last.time, seq: last.seq };
      await yieldToEventLoop();
    }
  }

  private threadUsable(): boolean {
    if (this.options.queries === undefined || this.options.queries.broken) return false;
    // `seq` is the rowid: its maximum is the number of records ever written, read from the end of the table.
    const size = this.run(() => (this.lastSeq.get() as { seq: number | null } | undefined)?.seq ?? 0);
    return size >= (this.options.threadMinRecords ?? QUERY_THREAD_MIN_RECORDS);
  }

  /** The worker's answer; when the worker could not start (before any chunk was sent), the same query here. */
  private async viaThread<T>(answer: Promise<T>, here: () => Promise<T>): Promise<T> {
    try {
      return await answer;
    } catch (error) {
      if (error instanceof QueryThreadUnavailable) return here();
      throw this.claim(error);
    }
  }

  private claim<E>(error: E): E {
    return this.options.outage ? this.options.outage.claim(error) : error;
  }

  private insertRecord(record: UsageRecord): boolean {
    const { hi, lo } = splitCost(record.cost);
    const inserted = this.insert.run(
      record.messageId,
      record.time,
      record.userId,
      record.chatId ?? null,
      record.model,
      record.pricedAs ?? null,
      record.pricedAs ?? record.model,
      record.promptTokens,
      record.completionTokens,
      record.cachedTokens,
      record.cacheWriteTokens,
      record.reasoningTokens,
      record.totalTokens,
      hi,
      lo,
      record.costSource,
      JSON.stringify(record),
    );
    if (inserted.changes === 0) return false;
    this.addSpend.run(record.userId, periodKey('daily', record.time), hi, lo);
    this.addSpend.run(record.userId, periodKey('monthly', record.time), hi, lo);
    const totals = recordTotals(record);
    const day = utcDay(record.time);
    for (const { dimension, key } of dailyTargets(record)) {
      this.addDaily.run(
        day,
        dimension,
        key,
        totals.records,
        totals.promptTokens,
        totals.completionTokens,
        totals.cachedTokens,
        totals.cacheWriteTokens,
        totals.reasoningTokens,
        totals.totalTokens,
        totals.estimated,
        totals.unpriced,
        hi,
        lo,
      );
    }
    return true;
  }

  /** One-time import of records an older Eunoe kept in the generic `ledger` stream (counters included). */
  private importStreams(): void {
    const done = this.db.prepare("SELECT 1 FROM meta WHERE key = 'ledger_imported'").get();
    if (done) return;
    this.db.transaction(() => {
      const rows = this.db
        .prepare("SELECT data FROM streams WHERE stream = 'ledger' ORDER BY time, seq")
        .all() as Array<{ data: string }>;
      for (const row of rows) {
        // A damaged entry is left behind; the others are imported (a throw here would stop the store from opening).
        const record = storedRecord(row.data);
        if (
          record &&
          typeof record.messageId === 'string' &&
          typeof record.userId === 'string' &&
          typeof record.time === 'number' &&
          typeof record.cost === 'string'
        )
          this.insertRecord(record as UsageRecord);
      }
      this.db
        .prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('ledger_imported', ?)")
        .run(new Date().toISOString());
    })();
  }

  private statement(sql: string, safeIntegers = false): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      if (safeIntegers) statement.safeIntegers(true);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}
