/**
 * The Open WebUI integration (the generated Function). It provides no service; its routes
 * (`GET /integrations/open-webui/function.py`, `POST /integrations/open-webui/inlet|outlet`, function-routes.ts) run
 * the loaded filters' hooks through the host's chain (`RouteHost.chain`).
 */
import type { Feature } from '../../../runtime/feature.js';
import { FUNCTION_PATH, openWebuiRouter } from './function-routes.js';

export function openWebuiFeature(): Feature {
  return {
    name: 'integrations/open-webui',
    // The Function holds no secret (its key is a valve the admin fills in Open WebUI).
    dashboardReads: [FUNCTION_PATH],
    routes(router, host) {
      router.use(openWebuiRouter(host.chain));
    },
  };
}
