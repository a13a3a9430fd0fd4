import { StateUnavailableError } from '../../core/errors/index.js';
import { errorMessage } from '../../core/util/error-message.js';
import type { Logger } from '../../core/util/logger.js';
import type { UsageRecord } from '../../domain/usage/types.js';
import { journalHealth, LedgerQueue } from '../journal/ledger-queue.js';
import type { LedgerHealth } from '../types.js';

/** SQLite result codes that mean the database as a whole cannot write now (not one record's fault). */
const DATABASE_WIDE = /^SQLITE_(FULL|IOERR|BUSY|LOCKED|READONLY|CANTOPEN|NOMEM|PROTOCOL|NOTADB|CORRUPT)/;

/** The SQLite code of an error (or of its cause: run() wraps them in StateUnavailableError). */
function sqliteCode(error: unknown): string {
  const own = (error as { code?: unknown })?.code;
  if (typeof own === 'string' && own.startsWith('SQLITE_')) return own;
  const cause = (error as { cause?: { code?: unknown } })?.cause?.code;
  return typeof cause === 'string' ? cause : '';
}

/** Where the journal is kept and how it retries (see SqliteUsageStoreOptions.journal). */
export interface SqliteLedgerJournalOptions {
  /** The journal file (LEDGER_JOURNAL_PATH); default in memory. */
  file?: string;
  /** Most records it holds (LEDGER_QUEUE_MAX). */
  max: number;
  /** How often a journal holding records retries them (default 1000 ms). */
  retryMs?: number;
  /** Bytes reserved on disk for it (LEDGER_JOURNAL_RESERVE_KB). */
  reserveBytes?: number;
}

/**
 * The SQLite ledger's journal: a record whose transaction failed (a constraint, a full disk, an I/O error) is accepted
 * here (a LedgerQueue, backend-neutral) and written to the ledger by a retry every `retryMs` until it lands; kept
 * across restarts when the journal is a file. Logs one line when records start going there and one when they have
 * landed.
 */
export class SqliteLedgerJournal {
  private readonly queue: LedgerQueue;
  private readonly timer: NodeJS.Timeout;
  /** Records journaled since the journal was last empty (for its two log lines). */
  private journaled = 0;

  constructor(
    options: SqliteLedgerJournalOptions,
    private readonly deps: {
      /** Write one record to the ledger in its own transaction (true: written, false: already there). */
      write: (record: UsageRecord) => boolean;
      logger?: Logger;
      /** Claims the StateUnavailableErrors raised here for the store's outage log. */
      claim: <E>(error: E) => E;
    },
  ) {
    const { logger } = deps;
    const every = options.retryMs ?? 1000;
    const queue: LedgerQueue = new LedgerQueue({
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
          { backend: 'sqlite', journal: queue.file, id: item.id, err: errorMessage(error) },
          `SQLite ledger write failed (${errorMessage(error)}); records are kept in the journal ${queue.file} and retried until they land (a failure of the whole database every ${every} ms, a record's own after 1 s, then doubling up to 60 s)`,
        );
      },
      onReleased: (count) => {
        if (queue.size > 0) return;
        logger?.info(
          { backend: 'sqlite', journaled: this.journaled, written: count },
          `the ${this.journaled} journaled ledger records are written to SQLite; the journal is empty`,
        );
        this.journaled = 0;
      },
    });
    if (queue.size > 0)
      logger?.warn(
        { backend: 'sqlite', journal: queue.file, queued: queue.size },
        `${queue.size} ledger records from an earlier run are in the journal ${queue.file}; writing them to SQLite`,
      );
    this.queue = queue;
    this.timer = setInterval(() => {
      if (this.queue.size > 0) void this.retry();
    }, every);
    this.timer.unref();
  }

  /** Records accepted after their transaction failed, waiting for a retry. */
  get size(): number {
    return this.queue.size;
  }

  /** Records refused and the journal's reserved room, for /health. */
  get health(): LedgerHealth {
    return journalHealth(this.queue);
  }

  /** A record was written to the ledger directly (records are taken again after a refusal). */
  accepted(): void {
    this.queue.accepted();
  }

  /** Write what the journal holds into the ledger now; true when it is empty. */
  retry(): Promise<boolean> {
    if (this.queue.size === 0) return Promise.resolve(true);
    return this.queue.flush(async (item) => this.deps.write(JSON.parse(item.json) as UsageRecord));
  }

  /**
   * Accept `record`, whose transaction failed with `error`, for a later retry (true). Throws StateUnavailableError
   * when the journal refuses it (full, or its file cannot take it).
   */
  hold(record: UsageRecord, error: unknown): true {
    let pushed: boolean;
    try {
      pushed = this.queue.push(
        { stream: 'ledger', id: record.messageId, time: record.time, json: JSON.stringify(record) },
        { error },
      );
    } catch (journalError) {
      throw this.deps.claim(
        new StateUnavailableError(
          `Ledger write failed (${errorMessage(error)}) and the journal ${this.queue.file} refused record ${record.messageId}: ${errorMessage(journalError)}`,
          { cause: journalError },
        ),
      );
    }
    if (!pushed)
      throw this.deps.claim(
        new StateUnavailableError(
          `Ledger write failed (${errorMessage(error)}) and the journal is full; record ${record.messageId} was not accepted`,
        ),
      );
    return true;
  }

  /** Stop retrying; what the journal still holds stays there for the next start. */
  close(): void {
    clearInterval(this.timer);
    this.queue.close();
  }
}
