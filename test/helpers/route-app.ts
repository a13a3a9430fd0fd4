import express, { type Express, type RequestHandler, type Router } from 'express';
import { errorHandler } from '../../src/server/middleware/error-handler.js';
import { requestContext } from '../../src/server/middleware/request-context.js';
import { silentLogger } from '../../src/core/util/logger.js';

type Mount = RequestHandler | Router | [path: string, handler: RequestHandler | Router];

/**
 * An express app around a few routers, wired like `src/app.ts`: the request context first (with a
 * silent logger, so rejected requests are not printed into the test output) and JSON errors last.
 */
export function routeApp(...mounts: Mount[]): Express {
  const app = express();
  app.use(requestContext(silentLogger()));
  for (const mount of mounts) {
    if (Array.isArray(mount)) app.use(mount[0], mount[1]);
    else app.use(mount);
  }
  app.use(errorHandler);
  return app;
}
