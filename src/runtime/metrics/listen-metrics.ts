import http from 'node:http';
import type { Logger } from '../../core/util/logger.js';
import type { Metrics } from './metrics.js';
import { metricsApp } from './metrics-router.js';

/**
 * When METRICS_PORT is set, serve `GET /metrics` without a key on that port (on HOST), for a port
 * only Prometheus reaches. A listen error is logged, never fatal: metrics are not worth a chat outage.
 */
export function listenMetrics(
  metrics: Metrics,
  config: { METRICS_PORT?: number; HOST: string },
  logger: Logger,
): http.Server | undefined {
  if (!config.METRICS_PORT) return undefined;
  const server = http.createServer(metricsApp(metrics));
  server.on('error', (error) =>
    logger.error({ err: error.message, port: config.METRICS_PORT }, 'metrics port: cannot listen'),
  );
  server.listen(config.METRICS_PORT, config.HOST, () =>
    logger.info({ port: config.METRICS_PORT }, `metrics on http://${config.HOST}:${config.METRICS_PORT}/metrics`),
  );
  return server;
}
