import { StateUnavailableError } from '../errors/index.js';
import type { Logger } from './logger.js';
import { errorMessage } from './error-message.js';

/** How long a store must go without a failed call before one that answers closes the outage (no flapping lines). */
const QUIET_MS = 1000;

/** The outage log of the store that raised each StateUnavailableError (see StoreOutageLog.claim). */
const owners = new WeakMap<object, StoreOutageLog>();

/**
 * A state store's outages as the log shows them: one line when one starts, one when it ends with how often each
 * feature fell back in between, instead of a warning per request and feature (a 10 s Redis outage under load wrote
 * thousands). Each store has its own, given to it by whoever builds it (createStateStore), so two stores in one
 * process keep apart. Opened by the store (Redis connection lost) or by the first feature that falls back (a Redis
 * that hangs keeps its connection); closed when the connection is back, or when a call answers after QUIET_MS
 * without failures. A feature reports a fallback with `reportDegraded` and the error the store raised: the store
 * claims the StateUnavailableErrors it raises, so the fallback is counted in that store's log.
 */
export class StoreOutageLog {
  private open = false;
  private since = 0;
  private lastFailureAt = 0;
  private readonly counts = new Map<string, number>();
  private logger: Logger | undefined;

  /** True while an outage is open. */
  get isOpen(): boolean {
    return this.open;
  }

  constructor(logger?: Logger) {
    this.logger = logger;
  }

  /**
   * Mark `error`, when a StateUnavailableError, as raised by this log's store (a fallback reported with it is counted
   * here); returns it. An error already claimed keeps its store.
   */
  claim<E>(error: E): E {
    if (error instanceof StateUnavailableError && !owners.has(error)) owners.set(error, this);
    return error;
  }

  /** The logger of the start and end lines (the store's); without one, the first reporter's. */
  useLogger(logger: Logger): void {
    this.logger = logger;
  }

  /**
   * The store is known to be unavailable: opens an outage. True when this opened it (the caller logs its own start
   * line); false when one was already open.
   */
  begin(): boolean {
    this.lastFailureAt = Date.now();
    if (this.open) return false;
    this.open = true;
    this.since = this.lastFailureAt;
    this.counts.clear();
    return true;
  }

  /**
   * A feature fell back because the store failed: a StateUnavailableError is counted under `what` (the first of an
   * outage logs the start line, without a stack); another error is not an outage and is logged at warn as before.
   */
  degraded(logger: Logger | undefined, what: string, error: unknown, fields: Record<string, unknown> = {}): void {
    const reason = errorMessage(error);
    if (!(error instanceof StateUnavailableError)) {
      (logger ?? this.logger)?.warn({ ...fields, err: reason }, what);
      return;
    }
    this.counts.set(what, (this.counts.get(what) ?? 0) + 1);
    if (!this.begin()) {
      logger?.debug({ ...fields, err: reason }, what);
      return;
    }
    this.counts.set(what, 1);
    (this.logger ?? logger)?.warn(
      { ...fields, err: reason, first: what },
      `State store unavailable (${reason}); features fall back until it answers again (first: ${what}). ` +
        'One line when it does, with how often each fell back',
    );
  }

  /** A store call failed as unavailable (keeps an open outage from closing while calls still fail). */
  failed(): void {
    if (this.open) this.lastFailureAt = Date.now();
  }

  /** A store call answered: ends an open outage after QUIET_MS without failures, with the end line. */
  answered(): void {
    if (!this.open || Date.now() - this.lastFailureAt < QUIET_MS) return;
    const degraded = this.end();
    const seconds = Number(((Date.now() - this.since) / 1000).toFixed(1));
    this.logger?.info(
      { outageSeconds: seconds, degraded },
      `State store answers again after ${seconds} s; ${describeDegraded(degraded)}`,
    );
  }

  /** Close the outage (the caller logs the end line) and take the counts of what fell back during it. */
  end(): Record<string, number> {
    const degraded = Object.fromEntries(this.counts);
    this.open = false;
    this.counts.clear();
    return degraded;
  }

  /** Forget an open outage without a line (the store is closing). */
  reset(): void {
    this.open = false;
    this.counts.clear();
  }
}

/** `degraded meanwhile: 228 × flag state …, 182 × user valves …` (or that nothing did). */
export function describeDegraded(degraded: Record<string, number>): string {
  const entries = Object.entries(degraded).sort((left, right) => right[1] - left[1]);
  if (entries.length === 0) return 'no feature fell back meanwhile';
  return `fell back meanwhile: ${entries.map(([what, count]) => `${count} × ${what}`).join(', ')}`;
}

/** The outage log of the store that raised `error` (see StoreOutageLog.claim), if any. */
export function outageLogOf(error: unknown): StoreOutageLog | undefined {
  return error instanceof StateUnavailableError ? owners.get(error) : undefined;
}

/**
 * A feature fell back because a store call failed: counted in the outage log of the store that raised `error` (see
 * StoreOutageLog.degraded). An error no store claimed is not an outage: logged at warn.
 */
export function reportDegraded(
  logger: Logger | undefined,
  what: string,
  error: unknown,
  fields: Record<string, unknown> = {},
): void {
  const log = outageLogOf(error);
  if (log) log.degraded(logger, what, error, fields);
  else logger?.warn({ ...fields, err: errorMessage(error) }, what);
}
