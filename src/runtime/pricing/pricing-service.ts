import type { Dispatcher } from 'undici';
import type { Config } from '../../core/config.js';
import type { Logger } from '../../core/util/logger.js';
import type { StateStore } from '../../state/types.js';
import type { ModelPrice, PricingLookup } from '../../domain/pricing/types.js';
import { DEFAULT_CONNECTION_PREFIXES } from '../../domain/pricing/model-index.js';
import { createPricingLookup } from '../../domain/pricing/pricing-lookup.js';
import type { FetchModelsOptions } from '../../domain/pricing/fetch-models.js';
import { modelCount, type PriceTable } from '../../domain/pricing/price-table.js';
import { nodeCronScheduler, type CronScheduler } from '../../domain/pricing/cron-scheduler.js';
import { PriceBook } from '../../domain/pricing/price-book.js';
import { SharedPriceTable } from './shared-price-table.js';
import { RefreshSchedule } from '../../domain/pricing/refresh-schedule.js';
import { PriceRefresher, type RefreshOutcome } from './price-refresher.js';
import { loadStartingPrices } from './starting-prices.js';

export { STORE_KEY, UPDATE_CHANNEL } from './shared-price-table.js';
export type { RefreshOutcome } from './price-refresher.js';

/** Options of createPricingService; everything with a side effect is injectable. */
export interface PricingServiceOptions {
  config: Pick<
    Config,
    | 'PRICING_URL'
    | 'PRICING_FETCH'
    | 'PRICING_CRON'
    | 'PRICING_TIMEOUT_MS'
    | 'PRICING_DIR'
    | 'CUSTOM_PRICING_FILE'
    | 'MODEL_ALIASES_FILE'
  >;
  logger: Logger;
  /** Shared store (lease + table for replicas); optional. */
  store?: StateStore;
  dispatcher?: Dispatcher;
  now?: () => number;
  scheduler?: CronScheduler;
  /** Bundled snapshot used when PRICING_DIR has none. */
  snapshotFile?: string | URL;
  connectionPrefixes?: string[];
  fetch?: Pick<FetchModelsOptions, 'retries' | 'backoffMs' | 'maxBytes' | 'sleep'>;
  /** How long a successful refresh keeps other replicas from refreshing (default: half the cron interval, 30 s–10 min). */
  leaseMs?: number;
  /** A new table smaller than this fraction of the current one is rejected as suspicious. */
  minShrinkRatio?: number;
}

/** What GET /pricing/status shows. */
export interface PricingStatus {
  source: PriceTable['source'];
  loadedAt: string;
  fetchedAt: string;
  ageSeconds: number;
  models: number;
  customModels: number;
  aliases: number;
  fetchEnabled: boolean;
  nextRefresh: string | null;
  /** When the last refresh by this process started (whatever its outcome), or null. */
  lastRefreshAt: string | null;
  lastError: string | null;
  /** How this process's last refresh ended (`updated`, `failed` or `rejected`), with its error or model count. */
  lastRefresh:
    | { at: string; outcome: 'updated'; models: number }
    | { at: string; outcome: 'failed' | 'rejected'; error: string }
    | null;
  /** When this process's last successful refresh started, or null. */
  lastSuccessAt: string | null;
}

/** The pricing service: the lookup plus lifecycle and status. */
export interface PricingService {
  readonly lookup: PricingLookup;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Fetch now (guarded: concurrent calls share one run; replicas share one via the lease). */
  refresh(): Promise<RefreshOutcome>;
  /** Resolves when the boot refresh (if any) has finished. */
  idle(): Promise<void>;
  status(): PricingStatus;
  /** Resolve a model to its price and the id it resolved to. */
  resolve(model: string, metadata?: { baseModelId?: string | null }): ModelPrice | undefined;
}

/**
 * Create the pricing service. `start()` loads the bundled snapshot or the last good table
 * (file or store, newest wins), the custom file and aliases, validates PRICING_CRON, schedules
 * the refresh (node-cron v4 `createTask`, `noOverlap`) and starts one refresh without waiting.
 */
export function createPricingService(options: PricingServiceOptions): PricingService {
  const { config, logger, store } = options;
  const now = options.now ?? Date.now;
  const book = new PriceBook(options.connectionPrefixes ?? DEFAULT_CONNECTION_PREFIXES, now);
  const shared = store ? new SharedPriceTable(store, logger) : undefined;
  const schedule = new RefreshSchedule(options.scheduler ?? nodeCronScheduler, config.PRICING_CRON, logger);
  const refresher = new PriceRefresher({
    config,
    logger,
    now,
    book,
    shared,
    leaseMs: () => schedule.leaseMs(options.leaseMs),
    dispatcher: options.dispatcher,
    fetch: options.fetch,
    minShrinkRatio: options.minShrinkRatio,
  });
  const lookup = createPricingLookup(() => book.index, now);
  let boot: Promise<unknown> = Promise.resolve();

  return {
    lookup,
    refresh: () => refresher.refresh(),
    idle: async () => {
      await boot;
    },
    resolve: (model, metadata) => lookup.resolve(model, metadata),
    async start() {
      schedule.validate();
      const starting = await loadStartingPrices({ config, logger, shared, snapshotFile: options.snapshotFile });
      book.setOverrides(starting.custom, starting.aliases);
      book.use(starting.table);
      shared?.follow(book);
      if (!config.PRICING_FETCH) {
        logger.info(
          `pricing: PRICING_FETCH=false, serving the ${book.table.source} table (${modelCount(book.table)} models) without refresh`,
        );
        return;
      }
      await schedule.start(() => refresher.refresh());
      boot = refresher.refresh();
    },
    async stop() {
      shared?.stop();
      await schedule.stop();
      await refresher.settled();
    },
    status() {
      const at = now();
      const table = book.table;
      const lastRefreshAt = refresher.lastRefreshAt;
      const last = refresher.lastRefresh;
      const success = refresher.lastSuccessAt;
      return {
        source: table.source,
        loadedAt: new Date(book.loadedAt).toISOString(),
        fetchedAt: new Date(table.fetchedAt).toISOString(),
        ageSeconds: Math.max(0, Math.round((at - table.fetchedAt) / 1000)),
        models: book.index.size,
        customModels: book.customModels,
        aliases: book.aliases,
        fetchEnabled: config.PRICING_FETCH,
        nextRefresh: schedule.nextRun()?.toISOString() ?? null,
        lastRefreshAt: lastRefreshAt === null ? null : new Date(lastRefreshAt).toISOString(),
        lastError: refresher.lastError,
        lastRefresh: last && { ...last, at: new Date(last.at).toISOString() },
        lastSuccessAt: success === null ? null : new Date(success).toISOString(),
      };
    },
  };
}
