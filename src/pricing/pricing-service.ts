import path from 'node:path';
import type { Dispatcher } from 'undici';
import type { Config } from '../config.js';
import type { Logger } from '../util/logger.js';
import type { Lease, StateStore } from '../state/types.js';
import { ConfigError } from '../errors/index.js';
import type { ModelPrice, PricingLookup } from './types.js';
import { ModelIndex, DEFAULT_CONNECTION_PREFIXES } from './model-index.js';
import { createPricingLookup } from './pricing-lookup.js';
import { fetchModels, type FetchModelsOptions } from './fetch-models.js';
import { buildPriceTable, modelCount, type PriceTable } from './price-table.js';
import { BUNDLED_SNAPSHOT, parseStoredTable, readLastGoodFile, readModelListFile, writeLastGoodFile } from './table-files.js';
import { loadCustomPricing, loadModelAliases } from './custom-pricing.js';
import { nodeCronScheduler, type CronScheduler, type SchedulerTask } from './cron-scheduler.js';

/** State-store key of the shared last good table. */
export const STORE_KEY = 'pricing:last-good';
/** Channel announcing a new table to the other replicas. */
export const UPDATE_CHANNEL = 'pricing:updated';
const LEASE_NAME = 'pricing:refresh';

/** Options of createPricingService; everything with a side effect is injectable. */
export interface PricingServiceOptions {
  config: Pick<Config, 'PRICING_URL' | 'PRICING_FETCH' | 'PRICING_CRON' | 'PRICING_TIMEOUT_MS' | 'PRICING_DIR' | 'CUSTOM_PRICING_FILE' | 'MODEL_ALIASES_FILE'>;
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

/** Result of one refresh attempt. */
export type RefreshOutcome =
  | { status: 'updated'; models: number }
  | { status: 'skipped'; reason: string }
  | { status: 'rejected' | 'failed'; error: string };

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
  lastRefreshAt: string | null;
  lastError: string | null;
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
  const scheduler = options.scheduler ?? nodeCronScheduler;
  const prefixes = options.connectionPrefixes ?? DEFAULT_CONNECTION_PREFIXES;
  let table: PriceTable = { source: 'snapshot', fetchedAt: 0, models: {}, aliases: {} };
  let custom: Record<string, Partial<ModelPrice> & { id: string }> = {};
  let userAliases: Record<string, string> = {};
  let index = new ModelIndex({}, {}, prefixes);
  let loadedAt = now();
  let lastRefreshAt: number | null = null;
  let lastError: string | null = null;
  let task: SchedulerTask | undefined;
  let unsubscribe: (() => void) | undefined;
  let inFlight: Promise<RefreshOutcome> | undefined;
  let boot: Promise<unknown> = Promise.resolve();

  const rebuild = () => {
    const models: Record<string, ModelPrice> = { ...table.models };
    for (const [id, entry] of Object.entries(custom)) models[id] = { ...models[id], ...entry };
    index = new ModelIndex(models, { ...table.aliases, ...userAliases }, prefixes);
  };
  const use = (next: PriceTable) => {
    table = next;
    loadedAt = now();
    rebuild();
  };
  const lookup = createPricingLookup(() => index, now);

  const adoptFromStore = async (): Promise<boolean> => {
    if (!store) return false;
    const stored = parseStoredTable(await store.get(STORE_KEY).catch(() => undefined));
    if (!stored || stored.fetchedAt <= table.fetchedAt || modelCount(stored) === 0) return false;
    use({ ...stored, source: 'live' });
    logger.info({ models: modelCount(stored) }, 'pricing: adopted the table another replica fetched');
    return true;
  };

  const runRefresh = async (): Promise<RefreshOutcome> => {
    let lease: Lease | undefined;
    if (store) {
      let unavailable = false;
      lease = await store.acquireLease(LEASE_NAME, leaseMs()).catch((error: unknown) => {
        unavailable = true;
        logger.warn({ err: error }, 'pricing: refresh lease unavailable (state store away); refreshing without it');
        return undefined;
      });
      if (!lease && !unavailable) {
        await adoptFromStore();
        return { status: 'skipped', reason: 'another replica holds the refresh lease' };
      }
    }
    lastRefreshAt = now();
    try {
      const parsed = await fetchModels({ url: config.PRICING_URL, timeoutMs: config.PRICING_TIMEOUT_MS, dispatcher: options.dispatcher, ...options.fetch });
      const next = buildPriceTable(parsed.models, 'live', now());
      const count = modelCount(next);
      const previous = modelCount(table);
      const ratio = options.minShrinkRatio ?? 0.5;
      if (count === 0 || count < previous * ratio) {
        const error = `suspicious table: ${count} models (current ${previous}); keeping the ${table.source} table`;
        lastError = error;
        logger.warn({ models: count, previous }, `pricing: ${error}`);
        await lease?.release().catch(() => undefined);
        return { status: 'rejected', error };
      }
      if (parsed.skipped) logger.warn({ skipped: parsed.skipped }, 'pricing: skipped malformed model entries');
      use(next);
      lastError = null;
      await writeLastGoodFile(config.PRICING_DIR, next).catch((error: unknown) => logger.warn({ err: error }, 'pricing: cannot write last-good.json'));
      if (store) {
        await store.set(STORE_KEY, next).catch((error: unknown) => logger.warn({ err: error }, 'pricing: cannot save table to the store'));
        await store.publish(UPDATE_CHANNEL, String(next.fetchedAt)).catch(() => undefined);
      }
      logger.info({ models: count }, 'pricing: refreshed from OpenRouter');
      return { status: 'updated', models: count };
    } catch (error) {
      lastError = (error as Error).message;
      logger.warn(`pricing: refresh failed (${lastError}); keeping the ${table.source} table with ${modelCount(table)} models`);
      await lease?.release().catch(() => undefined);
      return { status: 'failed', error: lastError };
    }
  };

  /** Lease length: explicit, else half the cron interval, between 30 s and 10 min (one refresh per interval). */
  const leaseMs = (): number => {
    if (options.leaseMs) return options.leaseMs;
    const [first, second] = task?.getNextRuns?.(2) ?? [];
    const interval = first && second ? second.getTime() - first.getTime() : 20 * 60_000;
    return Math.min(10 * 60_000, Math.max(30_000, Math.floor(interval / 2)));
  };

  const refresh = (): Promise<RefreshOutcome> => {
    inFlight ??= runRefresh().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };

  return {
    lookup,
    refresh,
    idle: async () => {
      await boot;
    },
    resolve: (model, metadata) => lookup.resolve(model, metadata),
    async start() {
      if (!scheduler.validate(config.PRICING_CRON)) {
        throw new ConfigError(`PRICING_CRON: "${config.PRICING_CRON}" is not a valid cron expression (e.g. "17 */6 * * *")`);
      }
      const local = await readModelListFile(path.join(config.PRICING_DIR, 'openrouter-snapshot.json'), 'snapshot');
      const snapshot = local ?? (await readModelListFile(options.snapshotFile ?? BUNDLED_SNAPSHOT, 'snapshot'));
      const fromFile = await readLastGoodFile(config.PRICING_DIR);
      const fromStore = store ? parseStoredTable(await store.get(STORE_KEY).catch(() => undefined)) : undefined;
      const lastGood = [fromFile, fromStore].filter((entry): entry is PriceTable => !!entry && modelCount(entry) > 0).sort((a, b) => b.fetchedAt - a.fetchedAt)[0];
      if (config.CUSTOM_PRICING_FILE) custom = await loadCustomPricing(config.CUSTOM_PRICING_FILE);
      if (config.MODEL_ALIASES_FILE) userAliases = await loadModelAliases(config.MODEL_ALIASES_FILE);
      // A newer bundled snapshot (after an upgrade) beats an older last-good table.
      if (lastGood && (!snapshot || lastGood.fetchedAt >= snapshot.fetchedAt)) use({ ...lastGood, source: 'last-good' });
      else if (snapshot) use(snapshot);
      else {
        use({ source: Object.keys(custom).length ? 'custom' : 'snapshot', fetchedAt: 0, models: {}, aliases: {} });
        logger.error('pricing: no bundled snapshot found; only custom prices are known until a refresh succeeds');
      }
      if (store) unsubscribe = store.subscribe(UPDATE_CHANNEL, () => void adoptFromStore());
      if (!config.PRICING_FETCH) {
        logger.info(`pricing: PRICING_FETCH=false, serving the ${table.source} table (${modelCount(table)} models) without refresh`);
        return;
      }
      const cronLogger = {
        info: (message: string) => logger.debug(`node-cron: ${message}`),
        warn: (message: string) => logger.debug(`node-cron: ${message}`),
        error: (message: string | Error) => logger.warn(`node-cron: ${String(message)}`),
        debug: (message: string | Error) => logger.debug(`node-cron: ${String(message)}`),
      };
      task = scheduler.createTask(config.PRICING_CRON, () => refresh(), { name: 'eunoe-pricing', timezone: 'UTC', noOverlap: true, logger: cronLogger });
      await task.start();
      boot = refresh();
    },
    async stop() {
      unsubscribe?.();
      if (task) {
        await task.stop();
        await task.destroy();
      }
      await inFlight?.catch(() => undefined);
    },
    status() {
      const at = now();
      return {
        source: table.source,
        loadedAt: new Date(loadedAt).toISOString(),
        fetchedAt: new Date(table.fetchedAt).toISOString(),
        ageSeconds: Math.max(0, Math.round((at - table.fetchedAt) / 1000)),
        models: index.size,
        customModels: Object.keys(custom).length,
        aliases: Object.keys(userAliases).length,
        fetchEnabled: config.PRICING_FETCH,
        nextRefresh: task?.getNextRun()?.toISOString() ?? null,
        lastRefreshAt: lastRefreshAt === null ? null : new Date(lastRefreshAt).toISOString(),
        lastError,
      };
    },
  };
}
