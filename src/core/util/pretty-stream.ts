import { Writable } from 'node:stream';

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** Fields every line has; printed in the head of the line, not repeated as key=value. */
const HEAD = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'service']);

function formatValue(value: unknown): string {
  if (typeof value === 'string') return /[\s"=]/.test(value) || value === '' ? JSON.stringify(value) : value;
  return JSON.stringify(value) ?? String(value);
}

/**
 * One pino JSON line as a human line: `2026-12-01T05:49:00.123Z INFO  request reqId=… status=200 ms=3.1`.
 * A line that is not JSON is passed through as it is.
 */
export function prettyLine(line: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const time = typeof entry.time === 'string' ? entry.time : new Date(Number(entry.time ?? Date.now())).toISOString();
  const level = (LEVELS[Number(entry.level)] ?? String(entry.level)).padEnd(5);
  const fields = Object.entries(entry)
    .filter(([key]) => !HEAD.has(key))
    .map(([key, value]) => `${key}=${formatValue(value)}`);
  return [time, level, String(entry.msg ?? ''), ...fields].join(' ').trimEnd();
}

/** A stream that takes pino's JSON lines and writes them to `destination` as human lines (LOG_FORMAT=pretty). */
export function prettyStream(destination: NodeJS.WritableStream = process.stdout): Writable {
  let pending = '';
  return new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      pending += String(chunk);
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      const text = lines
        .filter((line) => line.trim() !== '')
        .map((line) => `${prettyLine(line)}\n`)
        .join('');
      if (text) destination.write(text);
      callback();
    },
  });
}
