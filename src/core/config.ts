import path from 'node:path';
import { z } from 'zod';
import { ConfigError } from './errors/index.js';

const bool = z
  .union([z.boolean(), z.string()])
  .transform((value) => (typeof value === 'boolean' ? value : /^(1|true|yes|on)$/i.test(value.trim())));

/** Sizes like `50mb`, `512kb`, `1048576`. */
const bytes = z.union([z.number(), z.string()]).transform((value, context) => {
  if (typeof value === 'number') return value;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(value);
  if (!match) {
    context.addIssue({ code: 'custom', message: `not a size: ${value} (use e.g. 50mb)` });
    return z.NEVER;
  }
  const unit = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }[(match[2] ?? 'b').toLowerCase() as 'b'];
  return Math.round(Number(match[1]) * unit);
});

/** Every environment variable Eunoe reads (documented in the README). */
const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(9099),
  HOST: z.string().default('0.0.0.0'),
  PIPELINES_API_KEY: z.string().min(1).optional(),
  /** A read-only key for the dashboard: reads usage, caps and status; cannot change valves or filters. */
  DASHBOARD_API_KEY: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `json` (one object per line, ISO time) or `pretty` (human lines). */
  LOG_FORMAT: z.enum(['json', 'pretty']).default('json'),
  DATA_DIR: z.string().default('data'),
  FILTERS_DIR: z.string().default('filters'),
  /** Shipped filters loaded from the package besides FILTERS_DIR: `all`, `none` or a comma list of ids. */
  SHIPPED_FILTERS: z.string().default('all'),
  VALVES_DIR: z.string().default('valves'),
  PRICING_DIR: z.string().default('pricing'),
  BODY_LIMIT: bytes.default(50 * 1024 * 1024),
  UPLOAD_LIMIT: bytes.default(1024 * 1024),
  HOOK_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  /** Whether `/chat/completions` runs the filters around a pipe: `auto` (for callers other than Open WebUI), `always`, `never`. */
  PIPE_FILTERS: z.enum(['auto', 'always', 'never']).default('auto'),
  /**
   * `off`: `GET /models` lists no filter, so Open WebUI's Pipelines connection calls none (use it when the generated
   * Function runs them); Eunoe's own models, `/pipelines` and the valves forms stay.
   */
  PIPELINES_FILTERS: z.enum(['on', 'off']).default('on'),
  /** Deepest array/object nesting accepted in a JSON body (checked on the raw text, before parsing). */
  JSON_MAX_DEPTH: z.coerce.number().int().min(1).max(10_000).default(100),
  /** Most keys and array elements a JSON body may hold in all, at every level (counted on the raw text; more: 413). */
  JSON_MAX_KEYS: z.coerce.number().int().min(1).default(200_000),
  /** Most messages a chat in a body may have (`messages`, or `body.messages` in a hook call; more: 413). */
  JSON_MAX_MESSAGES: z.coerce.number().int().min(1).default(10_000),
  /** Time for a client to send a request's headers (Node's `server.headersTimeout`). */
  HEADERS_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000),
  /** Time for a client to send a whole request, body included (a 50 MB body at ~1 Mbit/s takes ~7 min). */
  REQUEST_TIMEOUT_MS: z.coerce.number().int().positive().default(600_000),
  /** An idle keep-alive connection is closed after this (above the 60 s idle timeout of common proxies). */
  KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().positive().default(65_000),
  RELOAD_DEBOUNCE_MS: z.coerce.number().int().min(0).default(300),
  WATCH_FILTERS: bool.default(true),
  ADD_URL_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /**
   * `POST /pipelines/add` may download from loopback, private (RFC 1918, CGNAT, unique local), link-local (cloud
   * metadata) and other non-public addresses. Off: only public addresses, every resolved address checked.
   */
  ADD_URL_ALLOW_PRIVATE: bool.default(false),
  REDIS_URL: z.string().optional(),
  /** Sentinel: `host:port,…` of the sentinels, and the name of the primary group they monitor. */
  REDIS_SENTINELS: z.string().optional(),
  REDIS_SENTINEL_NAME: z.string().optional(),
  REDIS_SENTINEL_PASSWORD: z.string().optional(),
  /** Cluster: `host:port,…` of some of its nodes (the others are found from them). */
  REDIS_CLUSTER_NODES: z.string().optional(),
  /** Credentials and TLS for Sentinel and Cluster (a REDIS_URL carries its own). */
  REDIS_USERNAME: z.string().optional(),
  REDIS_PASSWORD: z.string().optional(),
  REDIS_TLS: bool.default(false),
  /** PEM file of the CA that signed the Redis servers' certificates (else the system's trusted CAs). */
  REDIS_TLS_CA_FILE: z.string().optional(),
  REDIS_PREFIX: z.string().default('eunoe:'),
  STATE_TIMEOUT_MS: z.coerce.number().int().positive().default(500),
  LEDGER_QUEUE_MAX: z.coerce.number().int().positive().default(1_000_000),
  LEDGER_JOURNAL_PATH: z.string().optional(),
  /** Room reserved on disk for the journal (`LEDGER_JOURNAL_PATH.reserve`), taken when the disk is full; 0: none. */
  LEDGER_JOURNAL_RESERVE_KB: z.coerce.number().int().min(0).default(4096),
  SQLITE_PATH: z.string().optional(),
  FLAGS_TTL_DAYS: z.coerce.number().min(0).default(30),
  PRICING_URL: z.string().url().default('https://openrouter.ai/api/v1/models'),
  PRICING_FETCH: bool.default(true),
  PRICING_CRON: z.string().default('17 */6 * * *'),
  PRICING_TIMEOUT_MS: z.coerce.number().int().positive().default(15_000),
  CUSTOM_PRICING_FILE: z.string().optional(),
  MODEL_ALIASES_FILE: z.string().optional(),
  /** Open WebUI connection prefixes stripped from model ids before price lookup (comma list). */
  PRICING_CONNECTION_PREFIXES: z.string().optional(),
  /**
   * Open WebUI's address and an admin's API key: on the Pipelines connection (whose user carries no groups) the
   * hooks' `user.groups` are read from Open WebUI's groups API, cached for OPENWEBUI_GROUPS_REFRESH_S.
   */
  OPENWEBUI_URL: z.string().url().optional(),
  OPENWEBUI_API_KEY: z.string().min(1).optional(),
  OPENWEBUI_GROUPS_REFRESH_S: z.coerce.number().int().min(1).default(300),
  /** Where filter code runs: `auto` (non-shipped filters in worker threads), `worker` (all), `off` (all in the main thread). */
  FILTER_ISOLATION: z.enum(['auto', 'worker', 'off']).default('auto'),
  /** Per-file placement, `stem=main|worker` comma list (parsed by src/runtime/host/isolation). */
  FILTER_ISOLATION_OVERRIDES: z.string().optional(),
  FILTER_LOAD_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  FILTER_WORKER_MAX_MB: z.coerce.number().int().min(16).default(256),
  /** `GET /metrics` on the main port without the API key (default: the key is needed). */
  METRICS_PUBLIC: bool.default(false),
  /**
   * Model ids labelled as themselves in the usage metrics besides the price table's (comma list: local or workspace
   * models); any other model not in the price table is counted as `other`.
   */
  METRICS_MODELS: z.string().optional(),
  /** Also serve `GET /metrics`, without a key, on this port (on HOST), for a port only Prometheus reaches. */
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
});

/** The variables that choose and reach a Redis (see src/state/redis/redis-topology.ts). */
export type RedisSettingName =
  | 'REDIS_URL'
  | 'REDIS_SENTINELS'
  | 'REDIS_SENTINEL_NAME'
  | 'REDIS_SENTINEL_PASSWORD'
  | 'REDIS_CLUSTER_NODES'
  | 'REDIS_USERNAME'
  | 'REDIS_PASSWORD'
  | 'REDIS_TLS'
  | 'REDIS_TLS_CA_FILE';

/** True when the state lives in Redis (one node, Sentinel or Cluster), so replicas share it. */
export function usesRedis(
  config: Partial<Pick<Config, 'REDIS_URL' | 'REDIS_SENTINELS' | 'REDIS_CLUSTER_NODES'>>,
): boolean {
  return Boolean(config.REDIS_URL || config.REDIS_SENTINELS || config.REDIS_CLUSTER_NODES);
}

/** The names of every variable Eunoe reads (what a test clears from the environment it hands a server). */
export const SETTING_NAMES: readonly string[] = Object.freeze(Object.keys(envSchema.shape));

export type Config = Readonly<z.infer<typeof envSchema> & { sqlitePath: string; ledgerJournalPath: string }>;

/**
 * Parse and freeze the configuration from the environment. Throws ConfigError naming
 * every bad variable. Relative directories resolve against `cwd`.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env, cwd = process.cwd()): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid environment: ${lines.join('; ')}`);
  }
  const value = parsed.data;
  if (value.HEADERS_TIMEOUT_MS > value.REQUEST_TIMEOUT_MS) {
    throw new ConfigError(
      `Invalid environment: HEADERS_TIMEOUT_MS (${value.HEADERS_TIMEOUT_MS}) must not exceed REQUEST_TIMEOUT_MS (${value.REQUEST_TIMEOUT_MS})`,
    );
  }
  const resolve = (dir: string) => path.resolve(cwd, dir);
  return Object.freeze({
    ...value,
    DATA_DIR: resolve(value.DATA_DIR),
    FILTERS_DIR: resolve(value.FILTERS_DIR),
    VALVES_DIR: resolve(value.VALVES_DIR),
    PRICING_DIR: resolve(value.PRICING_DIR),
    sqlitePath: value.SQLITE_PATH ? resolve(value.SQLITE_PATH) : path.join(resolve(value.DATA_DIR), 'eunoe.db'),
    ledgerJournalPath: value.LEDGER_JOURNAL_PATH
      ? resolve(value.LEDGER_JOURNAL_PATH)
      : path.join(resolve(value.DATA_DIR), 'ledger-journal.db'),
  });
}
