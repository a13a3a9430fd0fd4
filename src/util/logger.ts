import { pino, type Logger } from 'pino';

export type { Logger } from 'pino';

/** Structured JSON logger; level from LOG_LEVEL (default info). Message text is never logged above debug. */
export function createLogger(options: { level?: string; destination?: NodeJS.WritableStream } = {}): Logger {
  const level = options.level ?? process.env.LOG_LEVEL ?? 'info';
  return options.destination
    ? pino({ level, base: { service: 'eunoe' } }, options.destination as never)
    : pino({ level, base: { service: 'eunoe' } });
}

/** A logger that drops everything (tests, benchmarks). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
