import { Agent, errors, request, type Dispatcher } from 'undici';
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

/**
 * Call the upstream. A non-2xx answer becomes a FilterError with the upstream's status and its
 * `error.message` (so a 429 stays a 429); a connection failure or timeout becomes a 502/504.
 */
export async function upstreamRequest(
  valves: ProxyValves,
  path: string,
  options: { method: 'GET' | 'POST'; body?: unknown; signal?: AbortSignal },
): Promise<Dispatcher.ResponseData> {
  const url = upstreamUrl(valves, path);
  const key = apiKeyOf(valves);
  let response: Dispatcher.ResponseData;
  try {
    response = await request(url, {
      method: options.method,
      headers: {
        accept: 'application/json, text/event-stream',
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(key ? { authorization: `Bearer ${key}` } : {}),
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
      dispatcher: agentFor(new URL(url).origin, valves.connect_timeout_ms),
      headersTimeout: valves.first_byte_timeout_ms,
      bodyTimeout: valves.idle_timeout_ms,
    });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    const timeout = error instanceof errors.HeadersTimeoutError || error instanceof errors.ConnectTimeoutError;
    const message = redact(`upstream ${new URL(url).host} ${(error as Error).message}`, key);
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
