import type Database from 'better-sqlite3';
import { MEMORY_JOURNAL, openLedgerJournal } from './open-ledger-journal.js';

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
 * never dropped.
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
  /** Entries that failed on their own (not because the backend was away), by seq: retried, not in the way. */
  private readonly held = new Map<number, { failures: number; nextAt: number }>();

  constructor(private readonly options: LedgerQueueOptions) {
    this.db = openLedgerJournal(options.file ?? MEMORY_JOURNAL);
    this.insert = this.db.prepare('INSERT INTO journal (item) VALUES (?)');
    this.oldest = this.db.prepare('SELECT seq, item FROM journal ORDER BY seq LIMIT ?');
    this.after = this.db.prepare('SELECT seq, item FROM journal WHERE seq > ? ORDER BY seq LIMIT ?');
    this.remove = this.db.prepare('DELETE FROM journal WHERE seq = ?');
    this.count = this.db.prepare('SELECT count(*) AS n FROM journal');
    this.waiting = this.count.get()?.n ?? 0;
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
      return false;
    }
    const { lastInsertRowid } = this.insert.run(JSON.stringify(item));
    this.waiting += 1;
    if (failed) {
      this.hold(Number(lastInsertRowid));
      this.options.onHeld?.(item, failed.error);
    }
    return true;
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
    this.waiting = 0;
    this.held.clear();
    return rows.map((row) => JSON.parse(row.item) as QueuedAppend);
  }

  /** Close the journal (what is in a file stays there for the next start). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
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
    for (;;) {
      if (this.closed) return false;
      const rows = this.after.all(cursor, batchSize);
      if (rows.length === 0) break;
      const now = this.now();
      // A held entry whose wait has not run out is passed over (and stays where it is).
      const due = rows.filter((row) => (this.held.get(row.seq)?.nextAt ?? 0) <= now);
      cursor = rows.at(-1)!.seq;
      if (due.length === 0) continue;
      const batch = due.map((row) => ({ seq: row.seq, item: JSON.parse(row.item) as QueuedAppend }));
      const results = await Promise.allSettled(batch.map(({ item }) => send(item)));
      if (this.closed) return false;
      let failed = false;
      this.db.transaction(() => {
        batch.forEach(({ seq, item }, index) => {
          const result = results[index];
          if (result?.status === 'rejected') {
            if (this.options.isTransient?.(result.reason) ?? true) {
              failed = true; // this one and the rest stay, in order
              return;
            }
            if (!this.held.has(seq)) this.options.onHeld?.(item, result.reason);
            this.hold(seq);
            return;
          }
          if (this.held.delete(seq)) released += 1;
          this.remove.run(seq);
        });
      })();
      this.waiting = this.count.get()?.n ?? 0;
      if (failed) break;
    }
    if (released > 0) this.options.onReleased?.(released);
    if (this.waiting > this.held.size) return false;
    if (this.dropped > 0) {
      this.options.onDrained?.(this.dropped);
      this.dropped = 0;
    }
    return this.waiting === 0;
  }
}
