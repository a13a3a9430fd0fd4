import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import type { Dispatcher } from 'undici';
import { loadUndici } from '../../core/util/load-undici.js';
import { discardBody } from '../../core/util/discard-body.js';
import { PayloadTooLargeError, ValidationError } from '../../core/errors/index.js';
import { classifyAddress } from './address-class.js';

/** GitHub `.../blob/<branch>/<path>` page URLs → raw file URLs (as the Python server does). */
export function rawUrl(url: URL): URL {
  if (url.hostname === 'github.com') {
    const match = /^\/([^/]+)\/([^/]+)\/blob\/(.+)$/.exec(url.pathname);
    if (match) return new URL(`https://raw.githubusercontent.com/${match[1]}/${match[2]}/${match[3]}`);
  }
  return url;
}

/**
 * Why an address may not be fetched (a phrase such as `a loopback address`), or undefined when it may. The default,
 * `refuseNonPublic`, refuses every address that is not on the public internet.
 */
export type AddressPolicy = (address: string) => string | undefined;

/** Refuse loopback, private, link-local, unspecified, multicast and reserved addresses (address-class.ts). */
export const refuseNonPublic: AddressPolicy = (address) => {
  const kind = classifyAddress(address);
  if (kind === 'public') return undefined;
  return kind === 'unspecified' ? 'an unspecified address' : `a ${kind} address`;
};

/** A download refused for where it leads; raised before any connection is made. */
class RefusedTargetError extends ValidationError {
  constructor(host: string, address: string, why: string) {
    super(
      `Refused to download from ${host}: ${host === address ? 'it is' : `it resolves to ${address},`} ${why}. ` +
        'POST /pipelines/add fetches only public addresses unless the admin sets ADD_URL_ALLOW_PRIVATE=true',
    );
  }
}

const bareHost = (url: URL) =>
  url.hostname.startsWith('[') && url.hostname.endsWith(']') ? url.hostname.slice(1, -1) : url.hostname;

/**
 * A DNS look-up that resolves every address of the name and fails when any of them is refused: the connection then
 * uses only addresses that were checked (no second look-up a DNS answer could change in between).
 */
function guardedLookup(policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      for (const { address } of addresses) {
        const why = policy(address);
        if (why) return callback(new RefusedTargetError(hostname, address, why), '', 0);
      }
      if (!addresses.length) return callback(Object.assign(new Error('no address'), { code: 'ENOTFOUND' }), '', 0);
      if (options.all) (callback as unknown as (error: null, all: LookupAddress[]) => void)(null, addresses);
      else callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/** The target of `url` when its host is an IP literal (never looked up, so checked here), before connecting. */
function checkLiteral(url: URL, policy: AddressPolicy | undefined): void {
  const host = bareHost(url);
  if (!policy || !isIP(host)) return;
  const why = policy(host);
  if (why) throw new RefusedTargetError(host, host, why);
}

/** The first RefusedTargetError in `error`'s cause chain (undici wraps socket errors). */
function refusal(error: unknown): RefusedTargetError | undefined {
  for (let at = error, depth = 0; at && depth < 5; at = (at as { cause?: unknown }).cause, depth++)
    if (at instanceof RefusedTargetError) return at;
  return undefined;
}

/**
 * A download failure in words of our own: never the text of the answer (it could quote what the server sent), and the
 * same words for every host that could not be reached.
 */
function describeFailure(error: unknown): string {
  const code = String((error as { code?: unknown })?.code ?? (error as { name?: unknown })?.name ?? '');
  if (/TIMEOUT|TimeoutError|AbortError/i.test(code)) return 'it did not answer in time (ADD_URL_TIMEOUT_MS)';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'the host name was not found';
  if (/^HPE_|UND_ERR_INFO|UND_ERR_RES/.test(code)) return 'the answer is not valid HTTP';
  if (/CERT|TLS|SSL|ERR_SSL/i.test(code)) return `its TLS certificate or handshake was refused (${code})`;
  return `the connection failed${code ? ` (${code})` : ''}`;
}

/**
 * Fetch a filter's source with undici, bounded in time (`timeoutMs` for headers and body) and size (`maxBytes`, 413
 * past it). `refuse` (default `refuseNonPublic`; `undefined` allows every address) is asked about every address the
 * URL and each redirect leads to, IP literals and every address a name resolves to, before connecting. Download
 * failures are 400 with a reason that never quotes what the server sent.
 */
export async function downloadFilter(options: {
  url: URL;
  timeoutMs: number;
  maxBytes: number;
  refuse?: AddressPolicy | undefined;
}): Promise<string> {
  let url = options.url;
  const policy = 'refuse' in options ? options.refuse : refuseNonPublic;
  const { request, Agent } = await loadUndici();
  const dispatcher = policy ? new Agent({ connect: { lookup: guardedLookup(policy) } }) : undefined;
  try {
    let response: Dispatcher.ResponseData;
    // Follow up to 5 redirects (GitHub /raw/ links redirect), like the Python server's requests.get; each is checked.
    for (let hop = 0; ; hop++) {
      checkLiteral(url, policy);
      try {
        response = await request(url, {
          method: 'GET',
          headersTimeout: options.timeoutMs,
          bodyTimeout: options.timeoutMs,
          signal: AbortSignal.timeout(options.timeoutMs),
          ...(dispatcher ? { dispatcher } : {}),
        });
      } catch (error) {
        throw refusal(error) ?? new ValidationError(`Failed to download file: ${describeFailure(error)}`);
      }
      const location = response.headers.location;
      if (response.statusCode >= 300 && response.statusCode < 400 && typeof location === 'string' && hop < 5) {
        await response.body.dump().catch(() => undefined);
        try {
          url = new URL(location, url);
        } catch {
          throw new ValidationError('Failed to download file: a redirect to an invalid URL');
        }
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
      throw new ValidationError(`Failed to download file: ${describeFailure(error)}`);
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    void dispatcher?.close().catch(() => undefined);
  }
}
