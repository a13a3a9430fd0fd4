import type { RedisClient } from './create-redis-client.js';
import type { Logger } from '../../core/util/logger.js';
import { describeDegraded, type StoreOutageLog } from '../../core/util/store-outage.js';

/** Options of an OutageMonitor. */
export interface OutageMonitorOptions {
  client: RedisClient;
  logger: Logger;
  /** The store's outage log. */
  outage: StoreOutageLog;
  /** The redacted URL for log lines. */
  where: string;
  queueMax: number;
  /** Where queued ledger writes are kept, for the outage line. */
  journal?: string;
  /** Called each time the connection becomes ready (after start-up or an outage). */
  onReady: () => void;
  /** Ledger writes waiting, for the reconnect line. */
  queued: () => number;
}

/**
 * Watches the main Redis connection and logs exactly one line when an outage starts and
 * one when it ends (with how often each feature fell back meanwhile, see StoreOutageLog), instead of one per failed
 * call, reconnect attempt or request.
 */
export class OutageMonitor {
  private down = false;
  private downSince = 0;
  private lastError = 'not connected yet';
  private stopped = false;

  constructor(private readonly options: OutageMonitorOptions) {
    const { client } = options;
    client.on('error', (error: Error & { code?: string }) => {
      this.lastError = error.code ? `${error.code} ${error.message}` : error.message;
    });
    client.on('close', () => this.markDown());
    client.on('ready', () => this.markUp());
  }

  /** True while the backend is known to be unreachable. */
  get isDown(): boolean {
    return this.down;
  }

  /** Stop logging (the store is closing its connection on purpose). */
  stop(): void {
    this.stopped = true;
  }

  /** Record the start of an outage (logged once). Also called when start-up finds Redis unreachable. */
  markDown(reason?: string): void {
    if (reason) this.lastError = reason;
    if (this.down || this.stopped) return;
    this.down = true;
    this.downSince = Date.now();
    if (!this.options.outage.begin()) return; // already open (Redis hung before it dropped the connection): logged then
    this.options.logger.warn(
      { backend: 'redis', redis: this.options.where, reason: this.lastError },
      `State backend Redis at ${this.options.where} is unavailable (${this.lastError}); state calls fail fast ` +
        `with StateUnavailableError and ledger appends are queued in ${this.options.journal ?? 'memory'} (max ${this.options.queueMax}) ` +
        'until it is back; reconnecting in the background',
    );
  }

  private markUp(): void {
    if (this.down && !this.stopped) {
      const seconds = ((Date.now() - this.downSince) / 1000).toFixed(1);
      const degraded = this.options.outage.end();
      this.options.logger.info(
        {
          backend: 'redis',
          redis: this.options.where,
          outageSeconds: Number(seconds),
          queued: this.options.queued(),
          degraded,
        },
        `State backend Redis at ${this.options.where} is back after ${seconds} s; flushing ${this.options.queued()} queued ledger writes; ${describeDegraded(degraded)}`,
      );
    }
    this.down = false;
    this.options.onReady();
  }
}
