/**
 * The run records' write buffer: an inlet hands its record over in memory, and the records of every inlet within
 * `flushMs` reach the store together (three store calls for the whole batch: the documents, the index pushes as one
 * `listPushMany`, the runs pushed out of retention), instead of four writes per run on the inlet's event loop.
 * Reads write the buffer first, so a run can be read as soon as its inlet answered; shutdown writes it too. A store
 * that is unavailable keeps the batch for the next flush (at most `max` runs, the oldest dropped first); another
 * failure writes the batch's runs one by one, losing only the run the store refused; a crash loses the runs of the
 * last `flushMs`.
 */
import { StateUnavailableError } from '../../../core/errors/index.js';
import type { Logger } from '../../../core/util/logger.js';
import { reportDegraded } from '../../../core/util/store-outage.js';

/** Buffered runs reach the store within this long (or at the next read, or at shutdown). */
export const RUN_FLUSH_MS = 200;
/** Most runs held while the store is unavailable. */
export const RUN_BUFFER_MAX = 2000;

export interface RunBufferOptions<T> {
  /** Writes a batch (in recording order) to the store. */
  write(batch: readonly T[]): Promise<void>;
  logger?: Logger;
  flushMs?: number;
  max?: number;
}

/** Buffered runs (`T`: a run with the retention of the filter that recorded it). */
export interface RunBuffer<T> {
  add(run: T): void;
  /** Writes what is buffered now; never rejects (a failure is logged, the batch kept when the store was away). */
  flush(): Promise<void>;
}

export function createRunBuffer<T>(options: RunBufferOptions<T>): RunBuffer<T> {
  const flushMs = options.flushMs ?? RUN_FLUSH_MS;
  const max = options.max ?? RUN_BUFFER_MAX;
  let queued: T[] = [];
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();

  const write = async () => {
    const batch = queued;
    queued = [];
    if (batch.length === 0) return;
    try {
      await options.write(batch);
    } catch (error) {
      // The store was away: the batch waits for the next flush (rewriting what did land is harmless).
      if (error instanceof StateUnavailableError) {
        reportDegraded(options.logger, 'could not record runs', error, { runs: batch.length });
        queued = [...batch, ...queued].slice(-max);
        schedule();
        return;
      }
      // Another error is one run's (a value the store refused): each run alone, so only that one is lost.
      for (const run of batch) {
        await options
          .write([run])
          .catch((alone: unknown) => reportDegraded(options.logger, 'could not record a run', alone));
      }
    }
  };

  const flush = (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    writing = writing.then(write);
    return writing;
  };

  function schedule() {
    if (timer) return;
    timer = setTimeout(() => void flush(), flushMs);
    timer.unref();
  }

  return {
    add(run) {
      queued.push(run);
      if (queued.length > max) queued.shift();
      schedule();
    },
    flush,
  };
}
