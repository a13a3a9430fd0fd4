/**
 * The context feature: the context filter's services (per-day statistics, the run inspector's records, the
 * Prometheus samples of its plans) and the run inspector's routes (`GET /runs`, `GET /runs/:id`). Its state lives in
 * this closure, one per runtime.
 */
import type { Feature } from '../../runtime/feature.js';
import { runsRouter } from './runs/runs-routes.js';
import { provideContextServices, type ContextServices } from './services.js';

export function contextFeature(): Feature {
  let provided: ContextServices | undefined;
  return {
    name: 'context',
    // The run inspector's list and one run's page.
    dashboardReads: ['/runs', /^\/runs\/[^/]+$/],
    services(host) {
      provided = provideContextServices(host.provided, host);
    },
    routes(router) {
      if (provided) router.use(runsRouter({ runs: provided.runs }));
    },
    async close() {
      // After the filters stopped (no inlet records any more), before the store closes.
      await provided?.stats.flush();
      await provided?.runs.flush();
    },
  };
}
