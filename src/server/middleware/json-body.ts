import express, { type Request, type RequestHandler } from 'express';
import { PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from '../../core/errors/index.js';
import { jsonLimitExceeded } from '../../core/util/json-depth.js';

/** What one JSON body may hold: bytes, nesting, keys and array elements in all, chat messages. */
export interface JsonBodyLimits {
  /** Bytes (BODY_LIMIT). */
  limit: number;
  /** Nesting of arrays and objects (JSON_MAX_DEPTH). */
  maxDepth: number;
  /** Keys and array elements at every level, in all (JSON_MAX_KEYS). */
  maxKeys: number;
  /** Entries of a chat's `messages`, at the top (`/chat/completions`) or in `body` (filter hooks) (JSON_MAX_MESSAGES). */
  maxMessages: number;
}

/** Bodies from this size on go to their route in a later turn of the event loop than the one that parsed them. */
const YIELD_AFTER_BYTES = 1024 * 1024;

/**
 * The JSON body parser: at most `limit` bytes, nested at most `maxDepth` arrays/objects deep, at most `maxKeys`
 * keys and array elements in all, and a chat of at most `maxMessages` messages. Depth and keys are checked on the
 * raw bytes before `JSON.parse`, so a hostile body (200k nested arrays: 400; a million small values: 413) never
 * reaches recursive code (zod, JSON.stringify) that would overflow, nor the parse, validation and copies whose
 * time grows with its values while every other request waits; the message count right after the parse (413).
 * A body of a megabyte or more is handed on after the event loop polled for I/O once more, so its parse and its
 * route's work are two pauses, not one, with the requests that arrived meanwhile answered in between. Mounted after the API key check: an unauthenticated body is never read.
 *
 * What Open WebUI sends — UTF-8 JSON with a Content-Length within the limit, not compressed —
 * is read here directly (chunks, one native UTF-8 decode, `JSON.parse`); express.json takes
 * every other request (compressed or chunked bodies, other charsets, oversized lengths), and
 * both answer malformed JSON the same way. A body sent with another Content-Type (curl's default form encoding,
 * `text/plain`) or none is a 415 naming it; multipart bodies (uploads) pass on to their route.
 */
export function jsonBody(options: JsonBodyLimits): RequestHandler {
  const parsed = express.json({
    limit: options.limit,
    verify: (_request, _response, raw, encoding) => {
      const text = encoding && !/^utf-?8$/i.test(encoding) ? decode(raw, encoding) : raw;
      checkShape(text, options);
    },
  });
  // express.json's bodies get the message count checked too.
  const general: RequestHandler = (request, response, next) =>
    parsed(request, response, (error?: unknown) => {
      if (error === undefined && request.body !== undefined) {
        try {
          checkMessages(request.body, options.maxMessages);
        } catch (tooMany) {
          next(tooMany);
          return;
        }
      }
      next(error);
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
      // A large body's route runs after the event loop polled for I/O twice, so requests that arrived during the parse
      // are answered first. Its listeners are gone already: nothing calls next twice.
      if (error === undefined && received >= YIELD_AFTER_BYTES) afterPolls(2, next);
      else next(error);
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
        checkShape(raw, options);
        request.body = parseStrictJson(raw.toString('utf8'));
        checkMessages(request.body, options.maxMessages);
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

/**
 * Calls `then` once the event loop has polled for I/O `polls` times. Each `setImmediate` runs in a check phase, after
 * the poll phase of its turn, so the first one runs before any new I/O is read: a request on a kept-alive connection
 * needs one more poll (its bytes are read), one on a new connection two (accepted, then read).
 */
function afterPolls(polls: number, then: () => void): void {
  setImmediate(() => (polls === 0 ? then() : afterPolls(polls - 1, then)));
}

/** Throws a 400 for a body nested deeper than `maxDepth`, a 413 for one with more than `maxKeys` keys and elements. */
function checkShape(text: Uint8Array | string, limits: JsonBodyLimits): void {
  const past = jsonLimitExceeded(text, { maxDepth: limits.maxDepth, maxEntries: limits.maxKeys });
  if (past === 'depth')
    throw new ValidationError(`JSON body nested deeper than ${limits.maxDepth} levels (JSON_MAX_DEPTH)`);
  if (past === 'entries') {
    throw new PayloadTooLargeError(
      `JSON body has more than ${limits.maxKeys} keys and array elements in all (JSON_MAX_KEYS; the admin can raise it)`,
    );
  }
}

/** Throws a 413 when the body's chat (`messages`, or `body.messages` in a hook's envelope) has more than `max` messages. */
function checkMessages(body: unknown, max: number): void {
  if (body === null || typeof body !== 'object') return;
  const { messages, body: inner } = body as { messages?: unknown; body?: unknown };
  const nested = inner !== null && typeof inner === 'object' ? (inner as { messages?: unknown }).messages : undefined;
  for (const [path, list] of [
    ['messages', messages],
    ['body.messages', nested],
  ] as const) {
    if (Array.isArray(list) && list.length > max) {
      throw new PayloadTooLargeError(
        `${path} has ${list.length} messages, more than ${max} (JSON_MAX_MESSAGES; the admin can raise it)`,
      );
    }
  }
}

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
