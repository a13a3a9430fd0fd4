import type { Agent, Dispatcher } from 'undici';
import { loadUndici } from '../../core/util/load-undici.js';
import { FilterError } from '../../core/errors/filter-error.js';
import { UpstreamError } from '../../core/errors/index.js';
import { redact } from '../../domain/llm/llm-errors.js';
import { apiKeyOf, type ProxyValves } from './proxy-valves.js';
import { errorMessage } from '../../core/util/error-message.js';

/** Time a closing pool gives the requests still running on it before they are cut. */
const CLOSE_GRACE_MS = 5_000;

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

/**
 * The keep-alive connection pools of one proxy instance, one per upstream origin and connect
 * timeout. Each `createOpenAIProxy()` owns its own, so one instance's shutdown (a reload, a removed
 * file) cannot close another's; a pool that was closed or destroyed is never used again (the next
 * request builds a new one).
 */
export class UpstreamPools {
  private readonly agents = new Map<string, Agent>();
  private targets = new WeakMap<ProxyValves, UpstreamTarget>();

  /**
   * Call the upstream. A non-2xx answer becomes a FilterError with the upstream's status and its
   * `error.message` (so a 429 stays a 429); a connection failure or timeout becomes a 502/504.
   */
  async request(
    valves: ProxyValves,
    path: string,
    options: { method: 'GET' | 'POST'; body?: unknown; signal?: AbortSignal },
  ): Promise<Dispatcher.ResponseData> {
    const undici = await loadUndici();
    let target: UpstreamTarget;
    try {
      target = this.targetOf(valves, undici.Agent);
    } catch (error) {
      throw new FilterError(502, `upstream base_url is not a URL: ${errorMessage(error)}`, { cause: error });
    }
    return send(target, valves, path, options, undici.errors);
  }

  /**
   * Close every pool: requests still running may finish (at most 5 s, then they are cut). A request
   * that comes after gets a new pool.
   */
  async close(): Promise<void> {
    const all = [...this.agents.values()];
    this.agents.clear();
    this.targets = new WeakMap();
    await Promise.allSettled(all.map(closeAgent));
  }

  private agentFor(origin: string, connectTimeoutMs: number, AgentClass: typeof Agent): Agent {
    const key = `${origin} ${connectTimeoutMs}`;
    let agent = this.agents.get(key);
    if (!agent || agent.closed || agent.destroyed) {
      agent = new AgentClass({ keepAliveTimeout: 30_000, connect: { timeout: connectTimeoutMs }, pipelining: 1 });
      this.agents.set(key, agent);
    }
    return agent;
  }

  private targetOf(valves: ProxyValves, AgentClass: typeof Agent): UpstreamTarget {
    const cached = this.targets.get(valves);
    if (cached && !cached.agent.closed && !cached.agent.destroyed) return cached;
    const url = new URL(valves.base_url);
    const key = apiKeyOf(valves);
    const headers: Record<string, string> = {
      accept: 'application/json, text/event-stream',
      ...(key ? { authorization: `Bearer ${key}` } : {}),
    };
    const target: UpstreamTarget = {
      origin: url.origin,
      host: url.host,
      basePath: url.pathname.replace(/\/+$/, ''),
      key,
      agent: this.agentFor(url.origin, valves.connect_timeout_ms, AgentClass),
      headers,
      jsonHeaders: { ...headers, 'content-type': 'application/json' },
    };
    this.targets.set(valves, target);
    return target;
  }
}

/** Close a pool gracefully, cutting what still runs after the grace time. */
async function closeAgent(agent: Agent): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), CLOSE_GRACE_MS);
    timer.unref();
  });
  try {
    if ((await Promise.race([agent.close(), late])) === 'late') await agent.destroy();
  } finally {
    clearTimeout(timer);
  }
}

async function send(
  target: UpstreamTarget,
  valves: ProxyValves,
  path: string,
  options: { method: 'GET' | 'POST'; body?: unknown; signal?: AbortSignal },
  errors: typeof import('undici').errors,
): Promise<Dispatcher.ResponseData> {
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
    const message = redact(`upstream ${target.host} ${errorMessage(error)}`, key);
    throw new FilterError(timeout ? 504 : 502, message, { cause: error });
  }
  if (response.statusCode >= 200 && response.statusCode < 300) return response;
  const text = await response.body.text().catch(() => '');
  const retryAfter = response.headers['retry-after'];
  // The upstream's own status and Retry-After reach the client.
  throw new UpstreamError(redact(upstreamErrorMessage(response.statusCode, text), key), response.statusCode, {
    status: response.statusCode,
    retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined,
  });
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
