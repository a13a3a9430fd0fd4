/** Field names whose values never reach a log line (secret valves, keys, auth headers). */
export const SECRET_FIELD_NAMES = [
  'summary_api_key',
  'api_key',
  'apiKey',
  'authorization',
  'password',
  'PIPELINES_API_KEY',
] as const;

/** What a redacted value reads as in logs. */
export const REDACTED = '[redacted]';

/**
 * pino `redact.paths` for SECRET_FIELD_NAMES at the top level and up to three levels deep
 * (`valves.summary_api_key`, `request.headers.authorization`, …): pino's wildcards match one level each.
 */
export function redactPaths(names: readonly string[] = SECRET_FIELD_NAMES): string[] {
  return names.flatMap((name) => [name, `*.${name}`, `*.*.${name}`, `*.*.*.${name}`]);
}
