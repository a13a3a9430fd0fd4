/** A ledger append waiting for the backend to come back. */
export interface QueuedAppend {
  stream: string;
  id: string;
  time: number;
  /** The record's data, already JSON. */
  json: string;
}

/** Options of a LedgerQueue. */
export interface LedgerQueueOptions {
  /** Most entries held; appends past it are refused. */
  max: number;
  /** Told once each time the queue fills up (until it has drained again). */
  onFull?: (max: number) => void;
  /** Told after a drain when appends were refused while the queue was full. */
  onDrained?: (dropped: number) => void;
  /**
   * True for failures worth retrying (Redis unreachable or slow). Anything else (e.g. WRONGTYPE)
   * will never succeed: that entry goes to `onDeadLetter` and the queue moves on, so one bad
   * record cannot hold back every later spend record. Default: every failure is transient.
   */
  isTransient?: (error: unknown) => boolean;
  onDeadLetter?: (item: QueuedAppend, error: unknown) => void;
}

/**
 * Bounded, ordered in-memory queue of ledger appends accepted while Redis was away.
 * `flush` sends them oldest first; sending must be idempotent by record id (it is:
 * HSETNX), because an append that timed out may already have landed.
 */
export class LedgerQueue {
  private items: QueuedAppend[] = [];
  private dropped = 0;
  private flushing: Promise<boolean> | undefined;

  constructor(private readonly options: LedgerQueueOptions) {}

  /** Entries waiting. */
  get size(): number {
    return this.items.length;
  }

  /** Add at the tail; false (and counted as dropped) when the queue is full. */
  push(item: QueuedAppend): boolean {
    if (this.items.length >= this.options.max) {
      if (this.dropped === 0) this.options.onFull?.(this.options.max);
      this.dropped += 1;
      return false;
    }
    this.items.push(item);
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

  /** Take every waiting entry out (shutdown reporting). */
  takeAll(): QueuedAppend[] {
    const all = this.items;
    this.items = [];
    return all;
  }

  private async drain(send: (item: QueuedAppend) => Promise<unknown>, batchSize: number): Promise<boolean> {
    while (this.items.length > 0) {
      const batch = this.items.slice(0, batchSize);
      const results = await Promise.allSettled(batch.map((item) => send(item)));
      const failed = batch.filter((item, index) => {
        const result = results[index];
        if (result?.status !== 'rejected') return false;
        if (this.options.isTransient?.(result.reason) ?? true) return true;
        this.options.onDeadLetter?.(item, result.reason);
        return false;
      });
      this.items = [...failed, ...this.items.slice(batch.length)];
      if (failed.length > 0) return false;
    }
    if (this.dropped > 0) {
      this.options.onDrained?.(this.dropped);
      this.dropped = 0;
    }
    return true;
  }
}
