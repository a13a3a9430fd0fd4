import fs from 'node:fs';
import type Database from 'better-sqlite3';
import { ConfigError } from '../../core/errors/index.js';
import { errorMessage } from '../../core/util/error-message.js';
import { PRIVATE_FILE_MODE } from '../../core/util/private-files.js';
import { DEFAULT_RESERVE_BYTES, JournalReserve } from './journal-reserve.js';
import { MEMORY_JOURNAL, openLedgerJournal } from './open-ledger-journal.js';
import type { LedgerHealth } from '../types.js';

/** The spend counters a usage record adds to, sent with it in one script. */
export interface QueuedUsage {
  userId: string;
  /** Counter keys (`d:YYYY-MM-DD`, `m:YYYY-MM`). */
  periods: string[];
  /** The cost split for 64-bit counters (see splitCost), as decimal integer strings. */
  hi: string;
  lo: string;
}

/** A ledger append waiting for the backend to come back. */
export interface QueuedAppend {
  stream: string;
  id: string;
  time: number;
  /** The record's data, already JSON. */
  json: string;
  /** Set for usage records: also index the user's copy and add to its spend counters. */
  usage?: QueuedUsage;
}

/** Options of a LedgerQueue. */
export interface LedgerQueueOptions {
  /** Most entries held; appends past it are refused. */
  max: number;
  /** The journal file (fsync'd SQLite); default in memory, which a process exit loses. */
  file?: string;
  /**
   * With a `file`: bytes reserved ahead on disk beside it (`<file>.reserve`, written full of zeros at start), where
   * entries go when the SQLite file cannot take them (a full disk), so the disk filling up cannot refuse them until
   * this room is used up. Default DEFAULT_RESERVE_BYTES (4 MiB); 0: none.
   */
  reserveBytes?: number;
  /** Told once each time the queue fills up (until it has drained again). */
  onFull?: (max: number) => void;
  /** Told after a drain when appends were refused while the queue was full. */
  onDrained?: (dropped: number) => void;
  /**
   * True for failures of the backend as a whole (Redis unreachable or slow): the flush stops there and keeps the order.
   * Anything else (a script error such as WRONGTYPE, a constraint, a full disk for SQLite) is a failure of that entry:
   * it is held (kept in the journal, retried by later flushes with a backoff from 1 s to 60 s, never dropped) and the
   * flush moves on, so one bad
   * record cannot hold back every later spend record. Default: every failure is transient.
   */
  isTransient?: (error: unknown) => boolean;
  /** Told once per entry when it is first held (see `isTransient`), with the error. */
  onHeld?: (item: QueuedAppend, error: unknown) => void;
  /** Told after a flush in which held entries finally landed, with their number. */
  onReleased?: (count: number) => void;
  /** The clock of the held entries' backoff (tests); default Date.now. */
  now?: () => number;
}

/** The reserve's file beside a journal file. */
export const reserveFile = (file: string): string => `${file}.reserve`;

/** How often a push tries to move the reserve's entries back into the SQLite file (it keeps the order meanwhile). */
const MOVE_RETRY_MS = 1000;

/** First and longest wait before a held entry is tried again (doubling in between). */
export const HELD_RETRY_MS = { first: 1000, max: 60_000 };

interface Row {
  seq: number;
  item: string;
}

/**
 * Bounded, ordered journal of ledger appends accepted while the store was away or refused them. With a `file`
 * it is durable: `push` returns after the row is committed and fsync'd, and a restarted
 * process finds and replays what an earlier one left. `flush` sends entries oldest first
 * and deletes each once the store has it; sending must be idempotent by record id (it is:
 * HSETNX on Redis, INSERT OR IGNORE on SQLite), because a crash between sending and deleting replays that entry.
 * An entry that fails on its own is held: kept and retried until it lands (1 s after its failure, then 2, 4 … 60 s),
 * never dropped. When the file cannot take an entry (a full disk), it goes to the room reserved beside it
 * (JournalReserve) and is sent after the file's entries; a push refused by both throws, and `refusing` says why until
 * an entry is taken again.
 */
export class LedgerQueue {
  private readonly db: Database.Database;
  private readonly insert: Database.Statement<[string]>;
  private readonly oldest: Database.Statement<[number], Row>;
  private readonly after: Database.Statement<[number, number], Row>;
  private readonly remove: Database.Statement<[number]>;
  private readonly count: Database.Statement<[], { n: number }>;
  private waiting: number;
  private dropped = 0;
  private flushing: Promise<boolean> | undefined;
  private closed = false;
  /**
   * Entries that failed on their own (not because the backend was away), by seq: retried, not in the way. An entry of
   * the reserve has the seq -(offset + 1).
   */
  private readonly held = new Map<number, { failures: number; nextAt: number }>();
  private readonly reserve: JournalReserve | undefined;
  private reserveMovedAt = 0;
  private refusedCount = 0;
  private refusedWhy: string | undefined;

  constructor(private readonly options: LedgerQueueOptions) {
    this.db = openLedgerJournal(options.file ?? MEMORY_JOURNAL);
    const bytes = options.reserveBytes ?? DEFAULT_RESERVE_BYTES;
    if (options.file && options.file !== MEMORY_JOURNAL && bytes > 0) {
      const file = reserveFile(options.file);
      try {
        this.reserve = new JournalReserve(file, bytes);
      } catch (error) {
        this.db.close();
        throw new ConfigError(
          `Ledger journal reserve ${file} (${Math.round(bytes / 1024)} KB) cannot be written (${errorMessage(error)}). ` +
            'Free room in DATA_DIR (or lower LEDGER_JOURNAL_RESERVE_KB): the reserve is what keeps answered ledger records when the disk is full.',
          { cause: error },
        );
      }
      try {
        fs.chmodSync(file, PRIVATE_FILE_MODE); // an existing file left wider by hand
      } catch {
        // not ours: left as it is, like the journal's own files
      }
    }
    this.insert = this.db.prepare('INSERT INTO journal (item) VALUES (?)');
    this.oldest = this.db.prepare('SELECT seq, item FROM journal ORDER BY seq LIMIT ?');
    this.after = this.db.prepare('SELECT seq, item FROM journal WHERE seq > ? ORDER BY seq LIMIT ?');
    this.remove = this.db.prepare('DELETE FROM journal WHERE seq = ?');
    this.count = this.db.prepare('SELECT count(*) AS n FROM journal');
    this.waiting = this.countAll();
  }

  /** True when entries survive a process exit (a journal file). */
  get durable(): boolean {
    return (this.options.file ?? MEMORY_JOURNAL) !== MEMORY_JOURNAL;
  }

  /** The journal file, or `:memory:`. */
  get file(): string {
    return this.options.file ?? MEMORY_JOURNAL;
  }

  /** Entries waiting. */
  get size(): number {
    return this.waiting;
  }

  /** The room reserved on disk (bytes) and how much of it is in use; undefined without a reserve. */
  get reserved(): { bytes: number; used: number; entries: number } | undefined {
    const reserve = this.reserve;
    return reserve ? { bytes: reserve.bytes, used: reserve.used, entries: reserve.size } : undefined;
  }

  /** Entries refused since the queue was opened (full, or neither the file nor its reserve could take them). */
  get refused(): number {
    return this.refusedCount;
  }

  /** Why the last entry was refused, until an entry is taken again (pushed, or written by the store at once). */
  get refusing(): string | undefined {
    return this.refusedWhy;
  }

  /** The store took a write directly: whatever refused the last entry no longer refuses writes. */
  accepted(): void {
    this.refusedWhy = undefined;
  }

  /** Entries waiting because the backend was away (not held for a failure of their own): new writes queue behind them. */
  get backlog(): number {
    return this.waiting - this.held.size;
  }

  /**
   * Add at the tail (committed before it returns); false (and counted as dropped) when the queue is full. With
   * `failed`, the entry already failed on its own: it is held at once (told to `onHeld`) and later writes need not
   * wait for it.
   */
  push(item: QueuedAppend, failed?: { error: unknown }): boolean {
    if (this.waiting >= this.options.max) {
      if (this.dropped === 0) this.options.onFull?.(this.options.max);
      this.dropped += 1;
      this.refuse(`the journal holds its maximum of ${this.options.max} entries (LEDGER_QUEUE_MAX)`);
      return false;
    }
    let seq: number;
    try {
      seq = this.write(JSON.stringify(item));
    } catch (error) {
      this.refuse(errorMessage(error));
      throw error;
    }
    this.refusedWhy = undefined;
    this.waiting += 1;
    if (failed) {
      this.hold(seq);
      this.options.onHeld?.(item, failed.error);
    }
    return true;
  }

  /**
   * Commit one entry: to the SQLite file, or, when that fails (a full disk) or the reserve already holds entries
   * (they keep their place ahead of it), to the reserve. Returns its seq.
   */
  private write(json: string): number {
    const reserve = this.reserve;
    if (reserve && reserve.size > 0 && !this.moveReserve()) return this.toReserve(reserve, json);
    try {
      return Number(this.insert.run(json).lastInsertRowid);
    } catch (error) {
      if (!reserve) throw error;
      return this.toReserve(reserve, json, error);
    }
  }

  private toReserve(reserve: JournalReserve, json: string, cause?: unknown): number {
    const offset = reserve.append(json);
    if (offset !== undefined) return -(offset + 1);
    const why = cause === undefined ? 'the journal file cannot take entries' : errorMessage(cause);
    throw new Error(
      `${why}, and the room reserved for the journal (${reserve.file}, ${Math.round(reserve.bytes / 1024)} KB) is full`,
      { cause },
    );
  }

  /**
   * Move the reserve's entries into the SQLite file in one transaction (at most once a second), so later entries go
   * there again; true when the reserve is empty afterwards. A crash between the commit and the reserve's reset
   * leaves an entry in both: sent twice, it lands once (sending is idempotent by id).
   */
  private moveReserve(): boolean {
    const reserve = this.reserve;
    if (!reserve || reserve.size === 0) return true;
    const now = this.now();
    if (now - this.reserveMovedAt < MOVE_RETRY_MS) return false;
    this.reserveMovedAt = now;
    const entries = reserve.entries();
    let seqs: number[];
    try {
      seqs = this.db.transaction(() => entries.map(({ item }) => Number(this.insert.run(item).lastInsertRowid)))();
    } catch {
      return false;
    }
    entries.forEach(({ offset }, index) => {
      const held = this.held.get(-(offset + 1));
      if (!held) return;
      this.held.delete(-(offset + 1));
      this.held.set(seqs[index]!, held);
    });
    try {
      reserve.done(entries.map(({ offset }) => offset));
    } catch {
      return false; // still in the reserve too: sent twice, landed once
    }
    return true;
  }

  private refuse(why: string): void {
    this.refusedCount += 1;
    this.refusedWhy = why;
  }

  private countAll(): number {
    return (this.count.get()?.n ?? 0) + (this.reserve?.size ?? 0);
  }

  /**
   * Send everything queued, in order, `batchSize` at a time (pipelined on one connection, so
   * the server applies them in order). Stops at the first batch with a failure, keeping
   * the unsent entries in order. One flush at a time; a concurrent call joins the running one.
   * @returns true when the queue is empty afterwards
   */
  flush(send: (item: QueuedAppend) => Promise<unknown>, batchSize = 100): Promise<boolean> {
    this.flushing ??= this.drain(send, batchSize).finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  /** Take every waiting entry out (shutdown reporting of an in-memory queue). */
  takeAll(): QueuedAppend[] {
    const rows = this.oldest.all(-1);
    this.db.prepare('DELETE FROM journal').run();
    const reserved = this.reserve?.entries() ?? [];
    this.reserve?.done(reserved.map(({ offset }) => offset));
    this.waiting = 0;
    this.held.clear();
    return [...rows, ...reserved].map((row) => JSON.parse(row.item) as QueuedAppend);
  }

  /** Close the journal (what is in a file stays there for the next start). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
    this.reserve?.close();
  }

  /** Hold `seq` (again): its next try waits 1 s after the first failure, doubling up to 60 s. */
  private hold(seq: number): void {
    const failures = (this.held.get(seq)?.failures ?? 0) + 1;
    const wait = Math.min(HELD_RETRY_MS.max, HELD_RETRY_MS.first * 2 ** (failures - 1));
    this.held.set(seq, { failures, nextAt: this.now() + wait });
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  private async drain(send: (item: QueuedAppend) => Promise<unknown>, batchSize: number): Promise<boolean> {
    let cursor = 0; // entries held in this flush stay behind the cursor: each is tried once per flush
    let released = 0;
    let landed = 0;
    let stopped = false;
    for (;;) {
      if (this.closed) return false;
      const rows = this.after.all(cursor, batchSize);
      if (rows.length === 0) break;
      cursor = rows.at(-1)!.seq;
      const outcome = await this.sendBatch(rows, send);
      if (outcome === undefined) return false;
      released += outcome.released;
      landed += outcome.landed.length;
      try {
        this.db.transaction(() => {
          for (const seq of outcome.landed) this.remove.run(seq);
        })();
      } catch {
        // The journal cannot delete now (a full disk): what landed stays and is sent again later, landing once.
        return false;
      }
      this.waiting = this.countAll();
      if (outcome.stopped) {
        stopped = true;
        break;
      }
    }
    // The reserve's entries came after every row of the file (see write): sent once the file's rows are.
    const reserve = this.reserve;
    if (!stopped && reserve && reserve.size > 0) {
      const entries = reserve.entries();
      for (let start = 0; start < entries.length; start += batchSize) {
        const rows = entries.slice(start, start + batchSize).map(({ offset, item }) => ({ seq: -(offset + 1), item }));
        const outcome = await this.sendBatch(rows, send);
        if (outcome === undefined) return false;
        released += outcome.released;
        landed += outcome.landed.length;
        try {
          reserve.done(outcome.landed.map((seq) => -seq - 1));
        } catch {
          return false; // an I/O error: what landed is sent again later (and lands once)
        }
        this.waiting = this.countAll();
        if (outcome.stopped) break;
      }
    }
    if (released > 0) this.options.onReleased?.(released);
    if (this.waiting > this.held.size) return false;
    if (this.dropped > 0) {
      this.options.onDrained?.(this.dropped);
      this.dropped = 0;
    }
    // Entries left the journal: there is room again for what was refused (the store takes writes, too).
    if (landed > 0 || this.waiting === 0) this.refusedWhy = undefined;
    return this.waiting === 0;
  }

  /**
   * Send the due entries of `rows` at once; which landed (to delete), how many of them had been held, and whether a
   * failure of the backend as a whole stopped the flush. Undefined when the queue was closed meanwhile.
   */
  private async sendBatch(
    rows: Row[],
    send: (item: QueuedAppend) => Promise<unknown>,
  ): Promise<{ landed: number[]; released: number; stopped: boolean } | undefined> {
    const now = this.now();
    // A held entry whose wait has not run out is passed over (and stays where it is).
    const due = rows.filter((row) => (this.held.get(row.seq)?.nextAt ?? 0) <= now);
    if (due.length === 0) return { landed: [], released: 0, stopped: false };
    const batch = due.map((row) => ({ seq: row.seq, item: JSON.parse(row.item) as QueuedAppend }));
    const results = await Promise.allSettled(batch.map(({ item }) => send(item)));
    if (this.closed) return undefined;
    const landed: number[] = [];
    let released = 0;
    let stopped = false;
    batch.forEach(({ seq, item }, index) => {
      const result = results[index];
      if (result?.status === 'rejected') {
        if (this.options.isTransient?.(result.reason) ?? true) {
          stopped = true; // this one and the rest stay, in order
          return;
        }
        if (!this.held.has(seq)) this.options.onHeld?.(item, result.reason);
        this.hold(seq);
        return;
      }
      if (this.held.delete(seq)) released += 1;
      landed.push(seq);
    });
    return { landed, released, stopped };
  }
}

/** What /health says of a queue's journal. */
export function journalHealth(queue: LedgerQueue): LedgerHealth {
  const reserve = queue.reserved;
  const refusing = queue.refusing;
  return { refused: queue.refused, ...(refusing ? { refusing } : {}), ...(reserve ? { reserve } : {}) };
}

/** The health detail's words for the journal: records refused now, the reserved room in use. */
export function journalReasons(ledger: LedgerHealth): string[] {
  const reasons: string[] = [];
  if (ledger.refusing)
    reasons.push(`ledger records are refused (answered 503), neither written nor journaled: ${ledger.refusing}`);
  const reserve = ledger.reserve;
  if (reserve && reserve.entries > 0)
    reasons.push(
      `the journal file cannot take records (disk full?): ${reserve.entries} are in its reserved room (${reserve.used} of ${reserve.bytes} bytes used)`,
    );
  return reasons;
}
