import type { Dispatcher } from 'undici';
import { loadUndici } from '../../core/util/load-undici.js';
import { discardBody } from '../../core/util/discard-body.js';
import { PayloadTooLargeError, ValidationError } from '../../core/errors/index.js';
import { errorMessage } from '../../core/util/error-message.js';

/** GitHub `.../blob/<branch>/<path>` page URLs → raw file URLs (as the Python server does). */
export function rawUrl(url: URL): URL {
  if (url.hostname === 'github.com') {
    const match = /^\/([^/]+)\/([^/]+)\/blob\/(.+)$/.exec(url.pathname);
    if (match) return new URL(`https://raw.githubusercontent.com/${match[1]}/${match[2]}/${match[3]}`);
  }
  return url;
}

/**
 * Fetch a filter's source with undici, bounded in time (`timeoutMs` for headers and body)
 * and size (`maxBytes`, 413 past it). Download failures are 400 with the reason.
 */
export async function downloadFilter(options: { url: URL; timeoutMs: number; maxBytes: number }): Promise<string> {
  let url = options.url;
  const { request } = await loadUndici();
  let response: Dispatcher.ResponseData;
  // Follow up to 5 redirects (GitHub /raw/ links redirect), like the Python server's requests.get.
  for (let hop = 0; ; hop++) {
    try {
      response = await request(url, {
        method: 'GET',
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
        signal: AbortSignal.timeout(options.timeoutMs),
      });
    } catch (error) {
      throw new ValidationError(`Failed to download file: ${errorMessage(error)}`);
    }
    const location = response.headers.location;
    if (response.statusCode >= 300 && response.statusCode < 400 && typeof location === 'string' && hop < 5) {
      await response.body.dump().catch(() => undefined);
      url = new URL(location, url);
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        throw new ValidationError('Failed to download file: redirect to a non-http(s) URL');
      continue;
    }
    break;
  }
  if (response.statusCode !== 200) {
    await response.body.dump().catch(() => undefined);
    throw new ValidationError(`Failed to download file: HTTP ${response.statusCode}`);
  }
  const declared = Number(response.headers['content-length'] ?? 0);
  if (declared > options.maxBytes) {
    await response.body.dump().catch(() => undefined);
    throw new PayloadTooLargeError(`Filter file too large (${declared} bytes; limit ${options.maxBytes})`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body) {
      size += (chunk as Buffer).length;
      if (size > options.maxBytes) {
        discardBody(response.body);
        throw new PayloadTooLargeError(`Filter file too large (over ${options.maxBytes} bytes)`);
      }
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (error instanceof PayloadTooLargeError) throw error;
    throw new ValidationError(`Failed to download file: ${errorMessage(error)}`);
  }
  return Buffer.concat(chunks).toString('utf8');
}
