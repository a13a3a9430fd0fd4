/**
 * The dashboard feature: its page (`GET /dashboard`, public: it asks for the key itself) and its JSON routes (`/usage/daily`, `/usage/context`, `/usage/unpriced`, `/usage/caps`,
 * `/status`). It reads the context filter's statistics through their service key, never through the context feature.
 */
import type { Feature } from '../../runtime/feature.js';
import { contextStatsService } from '../../runtime/host/shipped-service-keys.js';
import { dashboardDataRouter } from './dashboard-data-routes.js';
import { dashboardPageRouter } from './dashboard-page.js';

export function dashboardFeature(): Feature {
  return {
    name: 'dashboard',
    dashboardReads: ['/usage/daily', '/usage/context', '/usage/unpriced', '/usage/caps', '/status'],
    publicRoutes(router) {
      router.use(dashboardPageRouter());
    },
    routes(router, host) {
      if (!host.ledger) return; // an app built without the host's ledger has nothing to show
      router.use(
        dashboardDataRouter({
          ledger: host.ledger,
          contextStats: host.provided.get(contextStatsService),
          registry: host.registry,
          store: host.store,
          pricing: host.pricing,
        }),
      );
    },
  };
}
