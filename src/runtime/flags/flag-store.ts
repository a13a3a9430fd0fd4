import { StateUnavailableError } from '../../core/errors/index.js';
import type { StateStore } from '../../state/types.js';
import type { Logger } from '../../core/util/logger.js';
import { reportDegraded, type StoreOutageLog } from '../../core/util/store-outage.js';
import { isFlagStateDoc, type FlagStateDoc } from '../../domain/flags/flag-state.js';

/** Default upper bound for one store call made by the flags layer, in ms. */
export const FLAG_STORE_TIMEOUT_MS = 1_000;

/**
 * Settle with `promise`, or reject with StateUnavailableError after `timeoutMs` (never hang); the error is claimed by
 * `outage`, the log of the store that did not answer.
 */
export function withDeadline<T>(
  promise: Promise<T>,
  timeoutMs: number,
  what: string,
  outage?: StoreOutageLog,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new StateUnavailableError(`${what} took longer than ${timeoutMs} ms`);
      reject(outage ? outage.claim(error) : error);
    }, timeoutMs);
    timer.unref?.();
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** What a read found: `reachable` false when the store failed or timed out. */
export interface FlagStateRead {
  reachable: boolean;
  /** The stored value as read (needed for compare-and-set), undefined when absent. */
  raw: unknown;
  /** The stored document when it has the expected shape. */
  doc?: FlagStateDoc;
}

/** Read a chat's flag state; never throws (a failing store reads as unreachable). */
export async function readFlagState(
  store: StateStore,
  key: string,
  options: { timeoutMs: number; logger: Logger },
): Promise<FlagStateRead> {
  try {
    const raw = await withDeadline(store.get(key), options.timeoutMs, 'flag state read', store.outage);
    if (raw !== undefined && !isFlagStateDoc(raw))
      options.logger.warn({ chatKey: key }, 'flag state has an unexpected shape; rebuilding it from the history');
    return isFlagStateDoc(raw) ? { reachable: true, raw, doc: raw } : { reachable: true, raw };
  } catch (error) {
    reportDegraded(options.logger, 'flag state unavailable; replaying flags from the history', error, {
      chatKey: key,
    });
    return { reachable: false, raw: undefined };
  }
}

/**
 * Replace the chat's flag state when it still equals `expected` (compare-and-set, so two
 * replicas cannot lose each other's flags). Returns 'written', 'conflict' or 'failed'; never throws.
 */
export async function writeFlagState(
  store: StateStore,
  key: string,
  expected: unknown,
  next: FlagStateDoc,
  options: { ttlMs: number; timeoutMs: number; logger: Logger },
): Promise<'written' | 'conflict' | 'failed'> {
  try {
    const setOptions = options.ttlMs > 0 ? { ttlMs: options.ttlMs } : {};
    const written = await withDeadline(
      store.compareAndSet(key, expected, next, setOptions),
      options.timeoutMs,
      'flag state write',
      store.outage,
    );
    return written ? 'written' : 'conflict';
  } catch (error) {
    reportDegraded(options.logger, 'flag state could not be saved; it will be replayed from the history', error, {
      chatKey: key,
    });
    return 'failed';
  }
}
