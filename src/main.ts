import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from './core/config.js';
import { createLogger } from './core/util/logger.js';
import { ConfigError, EunoeError } from './core/errors/index.js';
import { VERSION } from './core/version.js';
import { tuneV8 } from './core/util/v8-tuning.js';
import { lockTarget, takeInstanceLock, type InstanceLock } from './server/instance-lock.js';
import { assertCanListen } from './server/port-probe.js';
import { EXIT_FATAL_CONFIG } from './supervisor/exit-codes.js';
import { errorMessage, errorStack } from './core/util/error-message.js';

/** Held from start-up to exit; the OS lets go of it if the process dies. */
let lock: InstanceLock | undefined;
/** What to do when the supervisor that started this process is gone (replaced by a graceful stop once serving). */
let onSupervisorGone = (): void => process.exit(1);

/**
 * Composition root: config → lock → port check → runtime → listen; graceful shutdown on SIGINT/SIGTERM, and
 * when the supervisor (`npm start`) that started this process goes away. What a restart cannot fix (bad
 * configuration, the port in use, the data folder held by another server) exits with EXIT_FATAL_CONFIG.
 */
async function main(): Promise<void> {
  tuneV8();
  // Started by the supervisor with an IPC channel: the channel closes when the supervisor dies, even by SIGKILL.
  if (process.channel) {
    process.channel.unref();
    process.once('disconnect', () => onSupervisorGone());
  }
  const config = loadConfig();
  const logger = createLogger({ level: config.LOG_LEVEL, format: config.LOG_FORMAT });
  mkdirSync(config.DATA_DIR, { recursive: true, mode: 0o700 });
  // One server per data folder (SQLite) or ledger journal (Redis), before anything is opened.
  const target = lockTarget(config);
  mkdirSync(path.dirname(target.file), { recursive: true, mode: 0o700 });
  lock = takeInstanceLock(target, {
    pid: process.pid,
    port: config.PORT,
    host: config.HOST,
    since: new Date().toISOString(),
  });
  // A port in use ends start-up here, before the store opens and every filter loads.
  await assertCanListen(config.HOST, config.PORT);
  // The runtime (the store, every feature, express) is imported only now: a start refused above (bad configuration,
  // data folder held, port in use) exits without loading it, in a fraction of the time.
  const [{ createRuntime }, { listenHttp }, { listenMetrics }] = await Promise.all([
    import('./compose.js'),
    import('./server/http-server.js'),
    import('./runtime/metrics/listen-metrics.js'),
  ]);
  const runtime = await createRuntime({ config, logger });
  const server = listenHttp(runtime.app, config, (error?: Error) => {
    if (error) {
      // listenHttp hands listen errors (port in use, no permission) to this callback.
      logger.fatal(
        { err: error.message, host: config.HOST, port: config.PORT },
        `cannot listen on ${config.HOST}:${config.PORT}: ${error.message}`,
      );
      process.stderr.write(
        `Eunoe failed to start: cannot listen on ${config.HOST}:${config.PORT} (${error.message}). Set PORT or HOST.\n`,
      );
      void runtime.close().finally(() => {
        lock?.release();
        process.exit(EXIT_FATAL_CONFIG);
      });
      return;
    }
    logger.info(
      {
        version: VERSION,
        host: config.HOST,
        port: config.PORT,
        filters: runtime.registry.list().map((filter) => filter.id),
      },
      `Eunoe listening on http://${config.HOST}:${config.PORT}`,
    );
  });
  const metricsServer = listenMetrics(runtime.metrics, config, logger);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // Let requests in flight finish, at most 10 s. runtime.close() then waits for the ledger writes that outlive
    // their answer (the proxy records a reply after [DONE] went out; at most 5 s) before the filters and the store stop.
    metricsServer?.close();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      // Keep-alive connections go idle once their request is answered: close them as they do.
      const idle = setInterval(() => server.closeIdleConnections(), 50);
      idle.unref();
      server.closeIdleConnections();
      setTimeout(resolve, 10_000).unref();
    });
    await runtime.close().catch((error) => logger.error({ err: errorMessage(error) }, 'shutdown failed'));
    lock?.release();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  onSupervisorGone = () => {
    logger.warn('the supervisor that started this server is gone; shutting down');
    void stop('supervisor gone');
  };
  // A filter's stray timer or promise must not take the server (and every chat) down: log it and keep serving.
  process.on('unhandledRejection', (reason) =>
    logger.error({ err: String(errorStack(reason) ?? reason) }, 'unhandled rejection'),
  );
  process.on('uncaughtException', (error) =>
    logger.fatal({ err: String(error?.stack ?? error) }, 'uncaught exception (server keeps running)'),
  );
}

main().catch((error: unknown) => {
  const message = error instanceof EunoeError ? error.message : (errorStack(error) ?? String(error));
  process.stderr.write(`Eunoe failed to start: ${message}\n`);
  lock?.release();
  // A configuration problem (ConfigError: bad variable, port in use, data folder held, unusable SQLite file)
  // is not fixed by starting again: the supervisor stops at once on this status.
  process.exit(error instanceof ConfigError ? EXIT_FATAL_CONFIG : 1);
});
