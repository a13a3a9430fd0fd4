import express, { Router, type Express } from 'express';
import type { Ledger } from './domain/usage/types.js';
import type { Feature, RouteHost } from './runtime/feature.js';
import type { ServiceRegistry } from './runtime/host/service-registry.js';
import type { PricingService } from './runtime/pricing/pricing-service.js';
import { pricingRouter } from './server/routes/pricing.js';
import { usageRouter } from './server/routes/usage.js';
import type { Logger } from './core/util/logger.js';
import type { StateStore } from './state/types.js';
import type { ModuleRegistry } from './runtime/host/module-registry.js';
import type { ValvesRepository } from './runtime/host/valves-repository.js';
import type { FlagsHost } from './runtime/host/flags-host.js';
import type { HostServices } from './runtime/host/types.js';
import { VERSION } from './core/version.js';
import { requestContext } from './server/middleware/request-context.js';
import { requireApiKey } from './server/middleware/auth.js';
import { jsonBody } from './server/middleware/json-body.js';
import { sendContinue } from './server/middleware/expect-continue.js';
import { errorHandler, notFound } from './server/middleware/error-handler.js';
import { methodNotAllowed, routeTable } from './server/middleware/method-not-allowed.js';
import { modelsRouter } from './server/routes/models.js';
import { valvesRouter } from './server/routes/valves.js';
import { filterHooksRouter } from './server/routes/filter-hooks.js';
import { managementRouter } from './server/routes/management.js';
import { dashboardReads } from './server/middleware/dashboard-reads.js';
import { checkStoreHealth, probesRouter } from './server/routes/probes.js';
import type { Metrics } from './runtime/metrics/metrics.js';
import { httpMetrics } from './runtime/metrics/http-metrics.js';
import { metricsRouter } from './runtime/metrics/metrics-router.js';
import { chatCompletionsRouter } from './server/routes/chat-completions.js';
import { ManifoldModels } from './runtime/pipes/manifold-models.js';
import { heldForPipeModels, PipeStatusMailbox } from './runtime/pipes/pipe-status.js';
import type { UserGroups } from './runtime/host/open-webui-groups.js';

/** Everything the HTTP layer needs; built by src/main.ts or by tests. */
export interface AppDeps {
  apiKey: string;
  /** Optional read-only key (DASHBOARD_API_KEY): the dashboard's reads and nothing else. */
  dashboardApiKey?: string;
  logger: Logger;
  store: StateStore;
  registry: ModuleRegistry;
  valves: ValvesRepository;
  services: HostServices;
  flags?: FlagsHost;
  filtersDir: string;
  bodyLimit: number;
  /** Deepest JSON nesting accepted in a body (default 100). */
  jsonMaxDepth?: number;
  /** Most keys and array elements in a JSON body, in all (default 200,000). */
  jsonMaxKeys?: number;
  /** Most messages in a chat in a body (default 10,000). */
  jsonMaxMessages?: number;
  uploadLimit: number;
  hookTimeoutMs: number;
  addTimeoutMs: number;
  /** ADD_URL_ALLOW_PRIVATE: `POST /pipelines/add` may fetch loopback, private and link-local addresses. */
  addAllowPrivate?: boolean;
  /** Prometheus metrics: requests and hooks are counted, `GET /metrics` serves them. */
  metrics?: Metrics;
  /** `GET /metrics` without the API key (METRICS_PUBLIC); by default it needs the key like every route. */
  metricsPublic?: boolean;
  /** Filters around pipes for direct callers (`PIPE_FILTERS`; default `auto`). */
  pipeFilters?: 'auto' | 'always' | 'never';
  /** Whether `GET /models` lists the filters (`PIPELINES_FILTERS`; default true). */
  listFilters?: boolean;
  /** The manifolds' `models()` cache (built here when absent). */
  manifolds?: ManifoldModels;
  /** The ledger: `GET /usage`, and what the features' routes read. */
  ledger?: Ledger;
  /** The price table: `GET /pricing/status`, `GET /pricing/<model>`. */
  pricing?: PricingService;
  /** The features (src/runtime/feature.ts): their routes are mounted here, after the host's. */
  features?: readonly Feature[];
  /** What the features provided, for their routes to read by key. */
  provided?: Pick<ServiceRegistry, 'get'>;
  /** The users' Open WebUI groups for callers that send none (OPENWEBUI_URL + OPENWEBUI_API_KEY). */
  userGroups?: UserGroups;
}

/**
 * Build the express app: the Pipelines routes at `/` and `/v1`, Bearer auth on every route
 * but `GET /` (checked before the body is read), JSON errors everywhere. Never listens; tests call it through supertest.
 *
 * @example
 * const app = createApp(deps);
 * await request(app).get('/').expect(200, { status: true });
 */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestContext(deps.logger));
  if (deps.metrics) app.use(httpMetrics(deps.metrics));

  // The features' public routes: the dashboard page and its static files (it asks for the key itself); its data is not.
  const pages = Router();
  for (const feature of deps.features ?? []) feature.publicRoutes?.(pages);
  app.use(pages);
  const root = Router();
  root.get('/', (_request, response) => {
    response.json({ status: true });
  });
  // Liveness and readiness answer without a key: container probes carry none.
  root.use(probesRouter({ store: deps.store, registry: deps.registry }));
  if (deps.metrics && deps.metricsPublic) root.use(metricsRouter(deps.metrics));
  const routes = Router();
  routes.use(root, methodNotAllowed(routeTable(root)));
  // The key is checked before any body is read: without it a request is a 401, its body unread.
  routes.use(
    requireApiKey(deps.apiKey, {
      readOnlyKey: deps.dashboardApiKey,
      readOnly: dashboardReads((deps.features ?? []).flatMap((feature) => feature.dashboardReads ?? [])),
    }),
    sendContinue,
  );
  routes.use(
    jsonBody({
      limit: deps.bodyLimit,
      maxDepth: deps.jsonMaxDepth ?? 100,
      maxKeys: deps.jsonMaxKeys ?? 200_000,
      maxMessages: deps.jsonMaxMessages ?? 10_000,
    }),
  );
  // 503 while the store is not healthy (unreachable, hanging, ledger writes waiting in the journal), like /readyz.
  routes.get('/health', async (_request, response) => {
    const store = await checkStoreHealth(deps.store);
    response.status(store.ok ? 200 : 503).json({
      status: store.ok,
      version: VERSION,
      store,
      filters: deps.registry.list().length,
      failed: deps.registry.failures().length,
    });
  });
  if (deps.metrics && !deps.metricsPublic) routes.use(metricsRouter(deps.metrics));
  // The hot path (every chat turn calls it, often twice) before the other routers: no route of theirs is
  // `POST /{id}/filter/{inlet|outlet}`, so the order changes nothing but the routers a hook call walks through.
  const mailbox = new PipeStatusMailbox(deps.store);
  routes.use(filterHooksRouter({ ...deps, heldEvents: heldForPipeModels(mailbox, deps.registry) }));
  const manifolds = deps.manifolds ?? new ManifoldModels({ services: deps.services, logger: deps.logger });
  routes.use(modelsRouter({ registry: deps.registry, manifolds, listFilters: deps.listFilters ?? true }));
  routes.use(chatCompletionsRouter({ ...deps, manifolds, mailbox }));
  routes.use(managementRouter(deps));
  if (deps.pricing) routes.use(pricingRouter({ pricing: deps.pricing }));
  if (deps.ledger) routes.use(usageRouter({ ledger: deps.ledger }));
  // Every feature's routes, here and nowhere else.
  const host: RouteHost = {
    store: deps.store,
    registry: deps.registry,
    ledger: deps.ledger,
    pricing: deps.pricing,
    provided: deps.provided ?? { get: () => undefined },
    chain: {
      registry: deps.registry,
      valves: deps.valves,
      services: deps.services,
      flags: deps.flags,
      hookTimeoutMs: deps.hookTimeoutMs,
      metrics: deps.metrics,
      userGroups: deps.userGroups,
    },
  };
  for (const feature of deps.features ?? []) feature.routes?.(routes, host);
  routes.use(valvesRouter({ registry: deps.registry, valves: deps.valves }));
  // Read from the routers above, once: a known path with another method is a 405, not a 404.
  routes.use(methodNotAllowed(routeTable(routes)));

  app.use('/v1', routes);
  app.use('/', routes);
  app.use(notFound);
  app.use(errorHandler);
  return app;
}
