import express, { type Request, type RequestHandler } from 'express';
import { UnsupportedMediaTypeError, ValidationError } from '../../core/errors/index.js';
import { jsonDepthExceeds } from '../../core/util/json-depth.js';

/**
 * The JSON body parser: at most `limit` bytes, and nested at most `maxDepth` arrays/objects
 * deep. Depth is checked on the raw bytes before `JSON.parse`, so a hostile body (200k nested
 * arrays) is a 400 and never reaches recursive code (zod, JSON.stringify) that would overflow.
 * Mounted after the API key check: an unauthenticated body is never read.
 *
 * What Open WebUI sends — UTF-8 JSON with a Content-Length within the limit, not compressed —
 * is read here directly (chunks, one native UTF-8 decode, `JSON.parse`); express.json takes
 * every other request (compressed or chunked bodies, other charsets, oversized lengths), and
 * both answer malformed JSON the same way. A body sent with another Content-Type (curl's default form encoding,
 * `text/plain`) or none is a 415 naming it; multipart bodies (uploads) pass on to their route.
 */
export function jsonBody(options: { limit: number; maxDepth: number }): RequestHandler {
  const general = express.json({
    limit: options.limit,
    verify: (_request, _response, raw, encoding) => {
      const text = encoding && !/^utf-?8$/i.test(encoding) ? decode(raw, encoding) : raw;
      if (jsonDepthExceeds(text, options.maxDepth)) throw tooDeep(options.maxDepth);
    },
  });
  return (request, response, next) => {
    // Read already (the routes are mounted at `/` and at `/v1`, so this runs again on a fall-through), or gone.
    if (request.readableEnded || request.destroyed) {
      next();
      return;
    }
    const mismatch = contentTypeMismatch(request);
    if (mismatch) {
      next(mismatch);
      return;
    }
    const length = plainJsonLength(request);
    if (length === undefined || length > options.limit) {
      general(request, response, next);
      return;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    // Exactly one way out: the listeners go as soon as the body is read or the request fails.
    const done = (error?: unknown) => {
      request.off('data', onData);
      request.off('error', onError);
      request.off('aborted', onAborted);
      request.off('end', onEnd);
      next(error);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      chunks.push(chunk);
    };
    const onError = (error: Error) => done(Object.assign(error, { status: 400 }));
    const onAborted = () => done(Object.assign(new Error('request aborted'), { status: 400, type: 'request.aborted' }));
    // Node's parser ends the body at Content-Length bytes (a shorter body is an abort), so `received` is the length.
    const onEnd = () => {
      const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received);
      try {
        if (jsonDepthExceeds(raw, options.maxDepth)) throw tooDeep(options.maxDepth);
        request.body = parseStrictJson(raw.toString('utf8'));
      } catch (error) {
        done(error);
        return;
      }
      done();
    };
    request.on('data', onData);
    request.on('error', onError);
    request.on('aborted', onAborted);
    request.on('end', onEnd);
  };
}

const tooDeep = (maxDepth: number) =>
  new ValidationError(`JSON body nested deeper than ${maxDepth} levels (JSON_MAX_DEPTH)`);

/** The body's Content-Length when it is plain UTF-8 JSON of a known length, not compressed; else undefined. */
function plainJsonLength(request: Request): number | undefined {
  const { headers } = request;
  if (headers['transfer-encoding'] !== undefined) return undefined;
  const encoding = headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return undefined;
  const type = headers['content-type'];
  if (type === undefined) return undefined;
  const [media, ...parameters] = type.split(';');
  if (media!.trim().toLowerCase() !== 'application/json') return undefined;
  // Only `charset=utf-8` (quoted or not) is read here; any other parameter goes to express.json and its checks.
  if (!parameters.every((parameter) => UTF8_CHARSET.test(parameter))) return undefined;
  const text = headers['content-length'];
  if (text === undefined || !/^\d+$/.test(text)) return undefined;
  return Number(text);
}

/** Media types a body may have: JSON, and multipart for uploads. */
const ACCEPTED_MEDIA = new Set(['application/json', 'multipart/form-data']);

/** A 415 for a request with a body whose Content-Type is not JSON (or none), else undefined. */
function contentTypeMismatch(request: Request): UnsupportedMediaTypeError | undefined {
  const { headers } = request;
  const length = headers['content-length'];
  const hasBody = headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
  if (!hasBody) return undefined;
  const type = headers['content-type'];
  const media = type?.split(';')[0]?.trim().toLowerCase();
  if (media && ACCEPTED_MEDIA.has(media)) return undefined;
  return new UnsupportedMediaTypeError(
    `Content-Type must be application/json (received ${media ? JSON.stringify(media) : 'none'})`,
  );
}

const UTF8_CHARSET = /^\s*charset\s*=\s*(?:utf-8|"utf-8")\s*$/i;

const FIRST_NON_WHITESPACE = /^[ \t\n\r]*([^ \t\n\r]|$)/;

/**
 * `JSON.parse` as express.json does it (strict mode): a byte-order mark dropped, an empty body
 * is `{}`, anything but an object or array at the top is a syntax error, and a syntax error
 * is a 400 `entity.parse.failed` with the parser's own message.
 */
function parseStrictJson(decoded: string): unknown {
  const text = decoded.charCodeAt(0) === 0xfeff ? decoded.slice(1) : decoded;
  if (text.length === 0) return {};
  try {
    if (text[0] !== '{' && text[0] !== '[') {
      const first = FIRST_NON_WHITESPACE.exec(text)?.[1];
      if (first !== '{' && first !== '[') throw strictViolation(text, first ?? '');
    }
    return JSON.parse(text);
  } catch (error) {
    throw Object.assign(error as Error, { status: 400, statusCode: 400, type: 'entity.parse.failed', expose: true });
  }
}

/** The error JSON.parse gives at the first character that is not an object or array, with that text shown. */
function strictViolation(text: string, first: string): Error {
  const index = first === '' ? -1 : text.indexOf(first);
  const partial = index === -1 ? '' : text.slice(0, index) + '#'.repeat(text.length - index);
  try {
    JSON.parse(partial);
    return new SyntaxError('strict violation');
  } catch (error) {
    const syntax = error as Error;
    syntax.message = syntax.message.replace(/#+/g, (run) => text.slice(index, index + run.length));
    return syntax;
  }
}

/** Body text in a non-UTF-8 charset (utf-16), for the depth scan. */
function decode(raw: Buffer, encoding: string): string {
  try {
    return new TextDecoder(encoding).decode(raw);
  } catch {
    throw new ValidationError(`Unsupported charset for a JSON body: ${encoding} (send UTF-8)`);
  }
}
