import { Agent, errors, type Dispatcher } from 'undici';
import { FilterError } from '../errors/filter-error.js';
import { redact } from '../llm/llm-errors.js';
import { apiKeyOf, type ProxyValves } from './proxy-valves.js';

const agents = new Map<string, Agent>();

/** One keep-alive connection pool per upstream origin and connect timeout, shared by every request. */
function agentFor(origin: string, connectTimeoutMs: number): Agent {
  const key = `${origin} ${connectTimeoutMs}`;
  let agent = agents.get(key);
  if (!agent) {
    agent = new Agent({ keepAliveTimeout: 30_000, connect: { timeout: connectTimeoutMs }, pipelining: 1 });
    agents.set(key, agent);
  }
  return agent;
}

/** Close every upstream pool (server shutdown). */
export async function closeUpstreams(): Promise<void> {
  const all = [...agents.values()];
  agents.clear();
  await Promise.allSettled(all.map((agent) => agent.close()));
}

/** `<base_url>/<path>` without a doubled slash. */
export const upstreamUrl = (valves: ProxyValves, path: string): string =>
  `${valves.base_url.replace(/\/+$/, '')}${path}`;

/** What every request to one upstream shares, worked out once per valves object (new valves: a new one). */
interface UpstreamTarget {
  origin: string;
  host: string;
  /** The base URL's path (`/api/v1`), without its trailing slash. */
  basePath: string;
  key: string;
  agent: Agent;
  jsonHeaders: Record<string, string>;
  headers: Record<string, string>;
}

const targets = new WeakMap<ProxyValves, UpstreamTarget>();

function targetOf(valves: ProxyValves): UpstreamTarget {
  let target = targets.get(valves);
  if (target) return target;
  const url = new URL(upstreamUrl(valves, ''));
  const key = apiKeyOf(valves);
  const headers: Record<string, string> = {
    accept: 'application/json, text/event-stream',
    ...(key ? { authorization: `Bearer ${key}` } : {}),
  };
  target = {
    origin: url.origin,
    host: url.host,
    basePath: url.pathname.replace(/\/+$/, ''),
    key,
    agent: agentFor(url.origin, valves.connect_timeout_ms),
    headers,
    jsonHeaders: { ...headers, 'content-type': 'application/json' },
  };
  targets.set(valves, target);
  return target;
}

/**
 * Call the upstream. A non-2xx answer becomes a FilterError with the upstream's status and its
 * `error.message` (so a 429 stays a 429); a connection failure or timeout becomes a 502/504.
 */
export async function upstreamRequest(
  valves: ProxyValves,
  path: string,
  options: { method: 'GET' | 'POST'; body?: unknown; signal?: AbortSignal },
): Promise<Dispatcher.ResponseData> {
  let target: UpstreamTarget;
  try {
    target = targetOf(valves);
  } catch (error) {
    throw new FilterError(502, `upstream base_url is not a URL: ${(error as Error).message}`, { cause: error });
  }
  const { key } = target;
  let response: Dispatcher.ResponseData;
  try {
    response = await target.agent.request({
      origin: target.origin,
      path: `${target.basePath}${path}`,
      method: options.method,
      headers: options.body === undefined ? target.headers : target.jsonHeaders,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
      headersTimeout: valves.first_byte_timeout_ms,
      bodyTimeout: valves.idle_timeout_ms,
    });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    const timeout = error instanceof errors.HeadersTimeoutError || error instanceof errors.ConnectTimeoutError;
    const message = redact(`upstream ${target.host} ${(error as Error).message}`, key);
    throw new FilterError(timeout ? 504 : 502, message, { cause: error });
  }
  if (response.statusCode >= 200 && response.statusCode < 300) return response;
  const text = await response.body.text().catch(() => '');
  const retryAfter = response.headers['retry-after'];
  throw new UpstreamError(
    response.statusCode,
    redact(upstreamErrorMessage(response.statusCode, text), key),
    typeof retryAfter === 'string' ? retryAfter : undefined,
  );
}

/** An upstream's error answer, with its `Retry-After` (passed on to the client with the same status). */
export class UpstreamError extends FilterError {
  constructor(
    status: number,
    message: string,
    readonly retryAfter?: string,
  ) {
    super(status, message, { code: 'ERR_UPSTREAM' });
  }
}

/** `error.message` (or `error`, or `detail`) of an error body, else its text. */
function upstreamErrorMessage(status: number, text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; detail?: unknown };
    const message =
      typeof body.error === 'string'
        ? body.error
        : typeof body.error?.message === 'string'
          ? body.error.message
          : body.detail;
    if (typeof message === 'string' && message) return `upstream ${status}: ${message}`;
  } catch {
    // not JSON: use the text
  }
  return `upstream ${status}: ${text.slice(0, 300) || 'no detail'}`;
}
