import { pino, type Logger, type LoggerOptions } from 'pino';
import { REDACTED, redactPaths } from './redact-paths.js';

export type { Logger } from 'pino';

/** The options every Eunoe logger shares: service name, secret fields redacted. */
function baseOptions(level: string): LoggerOptions {
  return { level, base: { service: 'eunoe' }, redact: { paths: redactPaths(), censor: REDACTED } };
}

/** Structured JSON logger; level from LOG_LEVEL (default info). Message text is never logged above debug. */
export function createLogger(options: { level?: string; destination?: NodeJS.WritableStream } = {}): Logger {
  const level = options.level ?? process.env.LOG_LEVEL ?? 'info';
  return options.destination ? pino(baseOptions(level), options.destination as never) : pino(baseOptions(level));
}

/** A logger that drops everything (tests, benchmarks). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
