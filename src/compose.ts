import { errorMessage } from './core/util/error-message.js';
import type { Express } from 'express';
import { usesRedis, type Config } from './core/config.js';
import type { Logger } from './core/util/logger.js';
import type { StateStore } from './state/types.js';
import { createStateStore } from './state/create-state-store.js';
import { ModuleRegistry } from './runtime/host/module-registry.js';
import { ValvesRepository } from './runtime/host/valves-repository.js';
import { createFlagsHost } from './runtime/flags/create-flags-host.js';
import type { HostServices } from './runtime/host/types.js';
import { resolveApiKey } from './server/api-key.js';
import { securePrivateFiles } from './core/util/private-files.js';
import { createApp } from './app.js';
import { createPricingService } from './runtime/pricing/pricing-service.js';
import { createLedger } from './runtime/usage/ledger.js';
import { spendHoldsService } from './domain/usage/spend-reservations.js';
import { createTokenCorrections } from './runtime/usage/token-corrections.js';
import { ServiceRegistry } from './runtime/host/service-registry.js';
import type { Feature } from './runtime/feature.js';
import { contextFeature } from './features/context/feature.js';
import { accountingFeature } from './features/accounting/feature.js';
import { spendLimitFeature } from './features/spend-limit/feature.js';
import { proxyFeature } from './features/proxy/feature.js';
import { dashboardFeature } from './features/dashboard/feature.js';
import { openWebuiFeature } from './features/integrations/open-webui/feature.js';
import { createFilterLoader } from './runtime/host/isolation/filter-loader.js';
import { parseOverrides } from './runtime/host/isolation/isolation-settings.js';
import { ShippedFilters } from './runtime/host/isolation/shipped-filters.js';
import { shippedFilterSource } from './runtime/host/shipped-filter-source.js';
import { uploadDirFor } from './runtime/host/filter-sources.js';
import { Metrics } from './runtime/metrics/metrics.js';
import { instrumentLedger } from './runtime/metrics/instrument-ledger.js';
import { PendingWork } from './runtime/pipes/pending-work.js';
import { OpenWebuiGroups } from './runtime/host/open-webui-groups.js';

/** The features, in the order their services are provided and their routes mounted (src/runtime/feature.ts). */
function shippedFeatures(): Feature[] {
  return [
    contextFeature(),
    accountingFeature(),
    spendLimitFeature(),
    proxyFeature(),
    dashboardFeature(),
    openWebuiFeature(),
  ];
}

/** Longest wait at shutdown for work requests left running (a ledger write after `[DONE]`). */
const PENDING_WORK_LIMIT_MS = 5_000;

/** A fully wired Eunoe: the app (not listening) plus what must be started and stopped. */
export interface Runtime {
  app: Express;
  apiKey: string;
  store: StateStore;
  registry: ModuleRegistry;
  services: HostServices;
  logger: Logger;
  /** Prometheus metrics (GET /metrics; METRICS_PORT serves them apart). */
  metrics: Metrics;
  /** Wait for work left running after answers (ledger writes, at most 5 s), then stop watchers, cron jobs, filters, features and the store. */
  close(): Promise<void>;
}

/**
 * Compose Eunoe from a Config: state store, host services, the features' services (shippedFeatures, in order),
 * valves, flags, filters (loaded and started), then the express app with the features' routes. Used by src/main.ts
 * and by tests (no socket needed).
 */
export async function createRuntime(options: { config: Config; logger: Logger; watch?: boolean }): Promise<Runtime> {
  const { config, logger } = options;
  const shipped = shippedFilterSource(config.SHIPPED_FILTERS); // a bad SHIPPED_FILTERS fails before anything opens
  securePrivateFiles({
    dataDir: config.DATA_DIR,
    valvesDir: config.VALVES_DIR,
    sqlitePath: usesRedis(config) ? undefined : config.sqlitePath,
    logger,
  });
  const apiKey = resolveApiKey({ configured: config.PIPELINES_API_KEY, dataDir: config.DATA_DIR, logger });
  const store = await createStateStore({ config, logger });
  const stops: Array<() => Promise<void> | void> = [];
  const prefixes = config.PRICING_CONNECTION_PREFIXES?.split(',')
    .map((prefix) => prefix.trim().toLowerCase())
    .filter(Boolean);
  const pricing = createPricingService({ config, store, logger, connectionPrefixes: prefixes });
  await pricing.start(); // offline-first: never waits for the network
  stops.push(() => pricing.stop());
  const metrics = new Metrics({
    storeHealth: () => store.health(),
    pricingAgeSeconds: () => pricing.status().ageSeconds,
    knownModels: config.METRICS_MODELS?.split(',')
      .map((model) => model.trim())
      .filter(Boolean),
  });
  const ledger = createLedger(store);
  const pending = new PendingWork();
  // What features provide (by keys declared below them); the host's services are the fields below.
  const provided = new ServiceRegistry();
  const features = shippedFeatures();
  // The features read the loaded filters' valves (the spend-limit caps) once the registry below exists.
  let loaded: ModuleRegistry | undefined;
  const filters = () => loaded?.list() ?? [];
  for (const feature of features) feature.services?.({ store, logger, metrics, provided, filters });
  const services: HostServices = {
    pending: { track: (work) => void pending.track(work) },
    pricing: pricing.lookup,
    ledger: instrumentLedger(ledger, metrics),
    spend: spendHoldsService(store.usage?.holds),
    corrections: createTokenCorrections(store),
    provided: provided.services,
  };

  const valves = new ValvesRepository({ dir: config.VALVES_DIR, store, logger });
  const flags = createFlagsHost({ store, logger, ttlMs: config.FLAGS_TTL_DAYS * 86_400_000 });
  const isolation = {
    mode: config.FILTER_ISOLATION,
    overrides: parseOverrides(config.FILTER_ISOLATION_OVERRIDES),
    loadTimeoutMs: config.FILTER_LOAD_TIMEOUT_MS,
    maxMemoryMb: config.FILTER_WORKER_MAX_MB,
  };
  const registry = new ModuleRegistry({
    load: createFilterLoader({ settings: isolation, shipped: new ShippedFilters(), services, logger }),
    dir: config.FILTERS_DIR,
    // The API never writes the package's own filters/ (the default FILTERS_DIR): uploads go to DATA_DIR/filters then.
    uploadDir: uploadDirFor({ filtersDir: config.FILTERS_DIR, packageDir: shipped.dir, dataDir: config.DATA_DIR }),
    shipped,
    store,
    valves,
    services,
    logger,
    debounceMs: config.RELOAD_DEBOUNCE_MS,
    onFlags: (filterId, specs) =>
      specs ? flags.registry.register(filterId, specs) : flags.registry.unregister(filterId),
  });
  loaded = registry;
  await registry.loadAll();
  if (options.watch ?? config.WATCH_FILTERS) registry.watch();
  stops.push(valves.onChange((filterId) => void registry.refreshValves(filterId)));

  const app = createApp({
    apiKey,
    dashboardApiKey: config.DASHBOARD_API_KEY,
    logger,
    store,
    registry,
    valves,
    services,
    flags,
    filtersDir: registry.uploadDir,
    bodyLimit: config.BODY_LIMIT,
    jsonMaxDepth: config.JSON_MAX_DEPTH,
    jsonMaxKeys: config.JSON_MAX_KEYS,
    jsonMaxMessages: config.JSON_MAX_MESSAGES,
    uploadLimit: config.UPLOAD_LIMIT,
    hookTimeoutMs: config.HOOK_TIMEOUT_MS,
    pipeFilters: config.PIPE_FILTERS,
    listFilters: config.PIPELINES_FILTERS === 'on',
    addTimeoutMs: config.ADD_URL_TIMEOUT_MS,
    addAllowPrivate: config.ADD_URL_ALLOW_PRIVATE,
    metrics,
    metricsPublic: config.METRICS_PUBLIC,
    ledger,
    pricing,
    features,
    provided,
    userGroups:
      config.OPENWEBUI_URL && config.OPENWEBUI_API_KEY
        ? new OpenWebuiGroups({
            url: config.OPENWEBUI_URL,
            apiKey: config.OPENWEBUI_API_KEY,
            refreshMs: config.OPENWEBUI_GROUPS_REFRESH_S * 1000,
            logger,
          })
        : undefined,
  });
  for (const feature of features) await feature.start?.();

  return {
    app,
    apiKey,
    store,
    registry,
    services,
    logger,
    metrics,
    async close() {
      // Answers already sent may still be recorded (the proxy writes the ledger after [DONE]): wait for them first.
      await pending.settle(PENDING_WORK_LIMIT_MS, logger);
      for (const stop of stops.reverse()) await stop();
      await registry.close();
      // Streams the filters' shutdown cut are recorded too; then nothing writes any more.
      await pending.settle(PENDING_WORK_LIMIT_MS, logger);
      // After the filters stopped (no inlet records any more), before the store closes.
      // One feature's failure to close does not keep the others (or the store) open.
      for (const feature of [...features].reverse()) {
        try {
          await feature.close?.();
        } catch (error) {
          logger.error({ feature: feature.name, err: errorMessage(error) }, 'a feature did not close cleanly');
        }
      }
      await store.close();
    },
  };
}
