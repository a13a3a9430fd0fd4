import type { Dispatcher } from 'undici';
import type { Config } from '../../core/config.js';
import type { Logger } from '../../core/util/logger.js';
import type { Lease } from '../../state/types.js';
import { fetchModels, type FetchModelsOptions } from '../../domain/pricing/fetch-models.js';
import { buildPriceTable, modelCount } from '../../domain/pricing/price-table.js';
import { writeLastGoodFile } from '../../domain/pricing/table-files.js';
import type { PriceBook } from '../../domain/pricing/price-book.js';
import type { SharedPriceTable } from './shared-price-table.js';
import { errorMessage } from '../../core/util/error-message.js';

/** Result of one refresh attempt. */
export type RefreshOutcome =
  | { status: 'updated'; models: number }
  | { status: 'skipped'; reason: string }
  | { status: 'rejected' | 'failed'; error: string };

/** How the last refresh that was not skipped ended, and when it started (epoch ms). */
export type LastRefresh =
  | { at: number; outcome: 'updated'; models: number }
  | { at: number; outcome: 'rejected' | 'failed'; error: string };

export interface PriceRefresherOptions {
  config: Pick<Config, 'PRICING_URL' | 'PRICING_TIMEOUT_MS' | 'PRICING_DIR'>;
  logger: Logger;
  now: () => number;
  book: PriceBook;
  /** The table shared with other replicas (lease, store, channel); none for a lone process. */
  shared?: SharedPriceTable;
  /** Length of the refresh lease, read at each refresh. */
  leaseMs: () => number;
  dispatcher?: Dispatcher;
  fetch?: Pick<FetchModelsOptions, 'retries' | 'backoffMs' | 'maxBytes' | 'sleep'>;
  /** A new table smaller than this fraction of the current one is rejected (default 0.5). */
  minShrinkRatio?: number;
}

/**
 * Fetches the OpenRouter table into the book: one run at a time (concurrent calls share it),
 * one replica at a time (the lease), suspiciously small tables rejected, a good one saved to
 * last-good.json and the store. Owns the run in flight and the last attempt's time and error.
 */
export class PriceRefresher {
  private inFlight: Promise<RefreshOutcome> | undefined;
  private lastAttemptAt: number | null = null;
  private lastFailure: string | null = null;
  private last: LastRefresh | null = null;
  private lastSuccess: number | null = null;
  /** Failed refreshes since the last success: only the first of a run is a warning (offline hosts stay quiet). */
  private failuresInARow = 0;

  constructor(private readonly options: PriceRefresherOptions) {}

  /** When the last refresh that was not skipped started (epoch ms), or null. */
  get lastRefreshAt(): number | null {
    return this.lastAttemptAt;
  }
  /** Why the last refresh failed or was rejected; null after a success. */
  get lastError(): string | null {
    return this.lastFailure;
  }

  /** How the last refresh that was not skipped ended, or null before the first. */
  get lastRefresh(): LastRefresh | null {
    return this.last;
  }
  /** When the last successful refresh started (epoch ms), or null. */
  get lastSuccessAt(): number | null {
    return this.lastSuccess;
  }

  /** Refresh now, or join the refresh already running. */
  refresh(): Promise<RefreshOutcome> {
    this.inFlight ??= this.run().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  /** Resolves once the refresh in flight (if any) has finished, whatever its outcome. */
  async settled(): Promise<void> {
    await this.inFlight?.catch(() => undefined);
  }

  private async run(): Promise<RefreshOutcome> {
    const { config, logger, now, book, shared } = this.options;
    let lease: Lease | undefined;
    if (shared) {
      const claim = await shared.claimRefresh(this.options.leaseMs());
      if (claim === 'held') {
        await shared.adoptInto(book);
        return { status: 'skipped', reason: 'another replica holds the refresh lease' };
      }
      lease = claim;
    }
    const at = now();
    this.lastAttemptAt = at;
    try {
      const parsed = await fetchModels({
        url: config.PRICING_URL,
        timeoutMs: config.PRICING_TIMEOUT_MS,
        dispatcher: this.options.dispatcher,
        ...this.options.fetch,
      });
      const next = buildPriceTable(parsed.models, 'live', now());
      const count = modelCount(next);
      const previous = modelCount(book.table);
      const ratio = this.options.minShrinkRatio ?? 0.5;
      if (count === 0 || count < previous * ratio) {
        const error = `suspicious table: ${count} models (current ${previous}); keeping the ${book.table.source} table`;
        this.lastFailure = error;
        this.last = { at, outcome: 'rejected', error };
        logger.warn({ models: count, previous }, `pricing: ${error}`);
        await lease?.release().catch(() => undefined);
        return { status: 'rejected', error };
      }
      if (parsed.skipped) logger.warn({ skipped: parsed.skipped }, 'pricing: skipped malformed model entries');
      book.use(next);
      this.lastFailure = null;
      this.last = { at, outcome: 'updated', models: count };
      this.lastSuccess = at;
      this.failuresInARow = 0;
      await writeLastGoodFile(config.PRICING_DIR, next).catch((error: unknown) =>
        logger.warn({ err: error }, 'pricing: cannot write last-good.json'),
      );
      await shared?.save(next);
      logger.info({ models: count }, 'pricing: refreshed from OpenRouter');
      return { status: 'updated', models: count };
    } catch (error) {
      const message = errorMessage(error);
      this.lastFailure = message;
      this.last = { at, outcome: 'failed', error: message };
      const fetched = book.table.fetchedAt;
      const age =
        fetched > 0
          ? `, prices of ${new Date(fetched).toISOString().slice(0, 10)}, ${Math.floor((now() - fetched) / 86_400_000)} days old`
          : '';
      const line = `pricing: refresh failed (${message}); keeping the ${book.table.source} table with ${modelCount(book.table)} models${age}`;
      // Once per outage at warn (an offline host says so once); later failures of the same run at info.
      if (this.failuresInARow++ === 0)
        logger.warn({ fetchedAt: fetched > 0 ? new Date(fetched).toISOString() : null }, line);
      else logger.info({ failures: this.failuresInARow }, line);
      await lease?.release().catch(() => undefined);
      return { status: 'failed', error: message };
    }
  }
}
