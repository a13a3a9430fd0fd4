import { StateUnavailableError } from '../errors/index.js';
import { reportDegraded } from './store-outage.js';
import type { Logger } from './logger.js';
import { errorMessage } from './error-message.js';

/**
 * Logs a degraded dependency once per outage instead of once per request. A state store outage
 * (StateUnavailableError) is counted under `message` in the outage log of the store that raised it (see
 * StoreOutageLog), reported in its start and end lines. Any other failure: the first at `warn`, repeats at `debug`, and one `info` line when a
 * later call succeeds again.
 */
export class OutageNotice {
  private down = false;
  private skipped = 0;

  constructor(private readonly what: string) {}

  /** A call failed: log it once per outage. */
  failed(logger: Logger, error: unknown, message: string): void {
    if (error instanceof StateUnavailableError) {
      reportDegraded(logger, message, error);
      return;
    }
    const reason = errorMessage(error);
    if (this.down) {
      this.skipped += 1;
      logger.debug({ err: reason }, message);
      return;
    }
    this.down = true;
    this.skipped = 0;
    logger.warn({ err: reason }, `${message} (logged once until ${this.what} answers again)`);
  }

  /** A call succeeded: close the outage with one line. */
  recovered(logger: Logger): void {
    if (!this.down) return;
    this.down = false;
    logger.info(
      { skipped: this.skipped },
      `${this.what} answers again (${this.skipped} more failures were not logged)`,
    );
  }
}
