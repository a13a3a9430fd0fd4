import express, { Router, type Express } from 'express';
import type { Metrics } from './metrics.js';

/** `GET /metrics`: the Prometheus text exposition of `metrics`. */
export function metricsRouter(metrics: Metrics): Router {
  const router = Router();
  router.get('/metrics', async (_request, response) => {
    const text = await metrics.registry.metrics();
    response.setHeader('Content-Type', metrics.registry.contentType);
    response.send(text);
  });
  return router;
}

/** A separate app serving only `GET /metrics` without a key (METRICS_PORT), for a port Prometheus alone reaches. */
export function metricsApp(metrics: Metrics): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(metricsRouter(metrics));
  app.use((_request, response) => {
    response.status(404).json({ detail: 'Not Found' });
  });
  return app;
}
