import type { RequestHandler } from 'express';
import type { Metrics } from './metrics.js';

/**
 * Count every answered request by route pattern (`/:id/filter/inlet`, not the filter id, so the
 * number of series stays bounded), method and status. Requests no route matched (401 before
 * routing, 404) are labelled `unmatched`.
 */
export function httpMetrics(metrics: Metrics): RequestHandler {
  return (request, response, next) => {
    response.on('finish', () => {
      const pattern = request.route?.path;
      const route = typeof pattern === 'string' ? pattern : 'unmatched';
      metrics.observeRequest(route, request.method, response.statusCode);
    });
    next();
  };
}
