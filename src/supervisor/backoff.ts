/** When to restart a server that stopped on its own, and when to give up. */
export interface BackoffPolicy {
  /** Delay before the first restart; doubled for each crash in a row. */
  minDelayMs: number;
  maxDelayMs: number;
  /** A server that ran this long was healthy: the next crash starts the back-off over. */
  healthyAfterMs: number;
  /**
   * Give up after this many crashes in a row, each before `healthyAfterMs`, that no filter explains (a crash loop,
   * e.g. a bug at start-up). Crashes while a filter was running never count: those restart forever, with back-off.
   */
  maxQuickCrashes: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = {
  minDelayMs: 500,
  maxDelayMs: 30_000,
  healthyAfterMs: 30_000,
  maxQuickCrashes: 5,
};

/** Tracks crashes in a row and answers the next delay, or undefined to give up. */
export class Backoff {
  /** Quick crashes in a row (the delay doubles with each). */
  private quickCrashes = 0;
  /** Of those, the ones no filter explains (the count that gives up). */
  private unexplained = 0;

  constructor(private readonly policy: BackoffPolicy = DEFAULT_BACKOFF) {}

  /**
   * The server ran `uptimeMs` and crashed: how long to wait before restarting it (undefined: stop trying).
   * `filterFault`: a filter was running when it died (the server itself is sound: never give up).
   */
  next(uptimeMs: number, filterFault = false): number | undefined {
    if (uptimeMs >= this.policy.healthyAfterMs) {
      this.quickCrashes = 0;
      this.unexplained = 0;
    }
    this.quickCrashes++;
    if (!filterFault && ++this.unexplained > this.policy.maxQuickCrashes) return undefined;
    return Math.min(this.policy.maxDelayMs, this.policy.minDelayMs * 2 ** Math.min(30, this.quickCrashes - 1));
  }
}
