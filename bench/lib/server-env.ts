import { SETTING_NAMES } from '../../src/core/config.js';

/**
 * The environment of a server process a test or a benchmark starts: `inherited` (this process's environment: PATH,
 * HOME, NODE_OPTIONS…) without any variable Eunoe reads, then `env`. A `REDIS_URL`, `DATA_DIR` or
 * `PIPELINES_API_KEY` of the shell that ran `npm test` never reaches the server; what the server gets is what the
 * caller passes.
 */
export function serverEnv(
  env: Record<string, string | undefined>,
  inherited: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  const settings = new Set(SETTING_NAMES);
  const kept = Object.fromEntries(Object.entries(inherited).filter(([name]) => !settings.has(name)));
  return { ...kept, ...env };
}
