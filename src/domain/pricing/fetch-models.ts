import type { Dispatcher } from 'undici';
import { loadUndici } from '../../core/util/load-undici.js';
import { discardBody } from '../../core/util/discard-body.js';
import { UpstreamError } from '../../core/errors/index.js';
import { parseModelList, type ParsedModelList } from './openrouter-schema.js';
import { errorMessage } from '../../core/util/error-message.js';

/** Options of one `/models` download. */
export interface FetchModelsOptions {
  url: string;
  /** Whole-attempt timeout (connect + headers + body). */
  timeoutMs: number;
  /** Extra attempts after the first on network errors, timeouts, 429 and 5xx. */
  retries?: number;
  /** First backoff delay; doubles per attempt. */
  backoffMs?: number;
  /** Response size cap in bytes. */
  maxBytes?: number;
  dispatcher?: Dispatcher;
  sleep?: (ms: number) => Promise<void>;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

class RetryableError extends UpstreamError {}

async function attempt(options: FetchModelsOptions): Promise<ParsedModelList> {
  const maxBytes = options.maxBytes ?? 20 * 1024 * 1024;
  const { request } = await loadUndici();
  const signal = AbortSignal.timeout(options.timeoutMs);
  let response: Dispatcher.ResponseData;
  try {
    response = await request(options.url, {
      method: 'GET',
      headers: { accept: 'application/json', 'user-agent': 'eunoe-pricing' },
      signal,
      dispatcher: options.dispatcher,
    });
  } catch (error) {
    throw new RetryableError(`pricing fetch failed: ${errorMessage(error)}`, undefined, { cause: error });
  }
  const { statusCode, body } = response;
  if (statusCode !== 200) {
    await body.dump().catch(() => undefined);
    const message = `pricing fetch got HTTP ${statusCode}`;
    throw statusCode === 429 || statusCode >= 500
      ? new RetryableError(message, statusCode)
      : new UpstreamError(message, statusCode);
  }
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    discardBody(body);
    throw new UpstreamError(`pricing response too large: ${declared} bytes (cap ${maxBytes})`, statusCode);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) {
        discardBody(body);
        throw new UpstreamError(`pricing response too large: over ${maxBytes} bytes`, statusCode);
      }
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (error instanceof UpstreamError) throw error;
    throw new RetryableError(`pricing body read failed: ${errorMessage(error)}`, statusCode, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (error) {
    throw new UpstreamError('pricing response is not JSON', statusCode, { cause: error });
  }
  const parsed = parseModelList(json);
  if (!parsed) throw new UpstreamError('pricing response has no data[] list', statusCode);
  return parsed;
}

/**
 * Download and validate OpenRouter's model list with a timeout, a size cap and retries
 * with exponential backoff (network errors, timeouts, 429, 5xx). Throws UpstreamError.
 */
export async function fetchModels(options: FetchModelsOptions): Promise<ParsedModelList> {
  const retries = options.retries ?? 2;
  const sleep = options.sleep ?? defaultSleep;
  for (let index = 0; ; index++) {
    try {
      return await attempt(options);
    } catch (error) {
      if (!(error instanceof RetryableError) || index >= retries) throw error;
      await sleep((options.backoffMs ?? 500) * 2 ** index);
    }
  }
}
