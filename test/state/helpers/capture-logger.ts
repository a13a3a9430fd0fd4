import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../../src/core/util/logger.js';

/** A real pino logger whose JSON lines are kept in `lines` for assertions. */
export function captureLogger(): {
  logger: Logger;
  lines: Array<{ level: number; msg: string } & Record<string, unknown>>;
} {
  const lines: Array<{ level: number; msg: string } & Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line));
      callback();
    },
  });
  return { logger: createLogger({ level: 'debug', destination }), lines };
}
