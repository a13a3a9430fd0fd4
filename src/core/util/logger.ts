import { pino, stdTimeFunctions, type Logger, type LoggerOptions } from 'pino';
import { REDACTED, redactPaths } from './redact-paths.js';
import { prettyStream } from './pretty-stream.js';

export type { Logger } from 'pino';

/** The options every Eunoe logger shares: service name, ISO timestamps, secret fields redacted. */
function baseOptions(level: string): LoggerOptions {
  return {
    level,
    base: { service: 'eunoe' },
    timestamp: stdTimeFunctions.isoTime,
    redact: { paths: redactPaths(), censor: REDACTED },
  };
}

/**
 * Structured logger; level from LOG_LEVEL (default info). `json` (default): one JSON object per line
 * with an ISO `time`; `pretty`: human lines (`<ISO time> INFO  <msg> key=value …`, LOG_FORMAT=pretty).
 * Message text is never logged above debug.
 */
export function createLogger(
  options: { level?: string; format?: 'json' | 'pretty'; destination?: NodeJS.WritableStream } = {},
): Logger {
  const level = options.level ?? process.env.LOG_LEVEL ?? 'info';
  if (options.format === 'pretty') return pino(baseOptions(level), prettyStream(options.destination));
  return options.destination ? pino(baseOptions(level), options.destination as never) : pino(baseOptions(level));
}

/** A logger that drops everything (tests, benchmarks). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
