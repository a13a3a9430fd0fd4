import type Database from 'better-sqlite3';
import { formatDecimal } from '../../domain/pricing/decimal.js';
import { joinCost } from '../../domain/usage/cost-parts.js';
import {
  totalsFromColumns,
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
import type { Logger } from '../../core/util/logger.js';
import type { StoreOutageLog } from '../../core/util/store-outage.js';
import type { LedgerHealth } from '../types.js';
import { SqliteSpendHolds } from './sqlite-spend-holds.js';
import { LedgerRows } from './ledger-rows.js';
import { SqliteLedgerJournal, type SqliteLedgerJournalOptions } from './sqlite-ledger-journal.js';
import { importLegacyLedger } from './import-legacy-ledger.js';

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
  journal?: SqliteLedgerJournalOptions;
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
 * The ledger on SQLite: a `ledger` table with indexed user, chat, model and time columns and the cost as two
 * integers, plus `ledger_spend` counters per user and UTC day / month. A record and its counters are one transaction
 * (LedgerRows; a repeat adds nothing); a record whose transaction fails goes to the journal (SqliteLedgerJournal); an
 * older Eunoe's records are imported once (importLegacyLedger). Aggregation is SQL GROUP BY over ranges of
 * SUMMARY_CHUNK rows walked by (time, seq) on an index; scans read USAGE_CHUNK records at a time; both yield to the
 * event loop between chunks.
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
  private readonly rows: LedgerRows;
  private readonly readSpend: Database.Statement;
  private readonly readScopeSpend: Database.Statement;
  private readonly readDaily: Database.Statement;
  private readonly recordTransaction: (record: UsageRecord) => boolean;
  private readonly batchTransaction: (batch: QueuedRecord[]) => boolean[];
  private readonly lastSeq: Database.Statement;
  private queued: QueuedRecord[] = [];
  private readonly journal: SqliteLedgerJournal | undefined;

  constructor(
    private readonly db: Database.Database,
    private readonly run: <T>(step: () => T) => T,
    private readonly options: SqliteUsageStoreOptions = {},
  ) {
    this.rows = new LedgerRows(db);
    this.readSpend = db.prepare('SELECT hi, lo FROM ledger_spend WHERE user_id = ? AND period = ?').safeIntegers(true);
    this.readScopeSpend = db
      .prepare('SELECT hi, lo FROM ledger_scope_spend WHERE scope = ? AND period = ?')
      .safeIntegers(true);
    this.readDaily = db
      .prepare('SELECT * FROM ledger_daily WHERE dimension = ? AND day >= ? AND day < ? ORDER BY day, key')
      .safeIntegers(true);
    this.recordTransaction = db.transaction((record: UsageRecord) => this.rows.insert(record));
    this.batchTransaction = db.transaction((batch: QueuedRecord[]) =>
      batch.map(({ record }) => this.rows.insert(record)),
    );
    this.lastSeq = db.prepare('SELECT max(seq) AS seq FROM ledger');
    if (!options.readOnly) importLegacyLedger(db, (record) => this.rows.insert(record));
    if (options.journal && !options.readOnly)
      this.journal = new SqliteLedgerJournal(options.journal, {
        write: (record) => this.run(() => this.recordTransaction(record)),
        logger: options.logger,
        claim: (error) => this.claim(error),
      });
    if (!options.readOnly) this.holds = new SqliteSpendHolds(db, run, () => this.writeQueued());
  }

  /** Stop the query worker, if any (and the journal's retries: what it still holds stays there for the next start). */
  async close(): Promise<void> {
    this.journal?.close();
    await this.options.queries?.close();
  }

  /** Records accepted into the journal after their transaction failed, waiting for a retry. */
  get journalSize(): number {
    return this.journal?.size ?? 0;
  }

  /** Records refused and the journal's reserved room, for /health. */
  get ledgerHealth(): LedgerHealth {
    return this.journal?.health ?? { refused: 0 };
  }

  /** Write what the journal holds into the ledger now (also every second while it holds something); true when empty. */
  retryJournal(): Promise<boolean> {
    return this.journal?.retry() ?? Promise.resolve(true);
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

  /** Accept a record whose transaction failed into the journal (retried later); throws when there is none or it is full. */
  private toJournal(record: UsageRecord, error: unknown): boolean {
    if (!this.journal) throw error;
    return this.journal.hold(record, error);
  }

  async spent(userId: string, key: string): Promise<string> {
    this.writeQueued();
    return this.run(() => {
      const row = this.readSpend.get(userId, key) as { hi: bigint; lo: bigint } | undefined;
      return formatDecimal(joinCost(row?.hi, row?.lo));
    });
  }

  async scopeSpent(scope: string, key: string): Promise<string> {
    this.writeQueued();
    return this.run(() => {
      const row = this.readScopeSpend.get(scope, key) as { hi: bigint; lo: bigint } | undefined;
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
