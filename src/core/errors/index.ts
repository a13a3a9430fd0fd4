import { EunoeError } from './eunoe-error.js';

export { EunoeError } from './eunoe-error.js';
export { ERROR_CODES, type ErrorCode } from './codes.js';
export { FilterError } from './filter-error.js';
export { reasonPhrase, REASON_PHRASE_MAX } from './reason-phrase.js';

/** 400: a request body or valve values failed validation. `fields` lists the issues. */
export class ValidationError extends EunoeError {
  constructor(
    message: string,
    readonly fields: Array<{ path: string; message: string }> = [],
  ) {
    super('ERR_VALIDATION', message, 400);
  }
}
/** 401: missing or wrong API key. */
export class UnauthorizedError extends EunoeError {
  constructor(message = 'Invalid API key') {
    super('ERR_UNAUTHORIZED', message, 401);
  }
}
/** 404: unknown filter, route or resource. */
export class NotFoundError extends EunoeError {
  constructor(message: string) {
    super('ERR_NOT_FOUND', message, 404);
  }
}
/** 405: known route, wrong method. */
export class MethodNotAllowedError extends EunoeError {
  constructor() {
    super('ERR_METHOD_NOT_ALLOWED', 'Method Not Allowed', 405);
  }
}
/** 413: request body or uploaded file too large. */
export class PayloadTooLargeError extends EunoeError {
  constructor(message: string) {
    super('ERR_TOO_LARGE', message, 413);
  }
}
/** 415: a request body that is not sent as JSON (`Content-Type` other than `application/json`). */
export class UnsupportedMediaTypeError extends EunoeError {
  constructor(message: string) {
    super('ERR_UNSUPPORTED_MEDIA_TYPE', message, 415);
  }
}
/** 500: a hook threw (with no status of its own) or returned no body. */
export class FilterExecutionError extends EunoeError {
  constructor(
    readonly filterId: string,
    readonly hook: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super('ERR_FILTER_FAILED', message, 500, options);
  }
}
/** 504: a hook ran past the configured timeout. */
export class FilterTimeoutError extends EunoeError {
  constructor(
    readonly filterId: string,
    readonly hook: string,
    timeoutMs: number,
  ) {
    super('ERR_FILTER_TIMEOUT', `Filter ${filterId} ${hook} timed out after ${timeoutMs} ms`, 504);
  }
}
/** 500: an isolated filter's worker died (out of memory, killed after another call's timeout); it is replaced. */
export class FilterCrashedError extends EunoeError {
  constructor(
    readonly filterId: string,
    message: string,
  ) {
    super('ERR_FILTER_CRASHED', message, 500);
  }
}
/** 503: the state backend cannot answer in time (callers degrade where documented). */
export class StateUnavailableError extends EunoeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_STATE_UNAVAILABLE', message, 503, options);
  }
}
/** Start-up configuration problem: names the variable or file and what to do. */
export class ConfigError extends EunoeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_CONFIG', message, 500, options);
  }
}
/**
 * Start-up: another live Eunoe process holds the lock on this data folder (SQLite) or ledger journal (Redis).
 * `holder` names it (pid, port) when it could be read.
 */
export class DataDirInUseError extends ConfigError {
  constructor(
    message: string,
    readonly holder?: { pid?: number; port?: number; host?: string; since?: string },
  ) {
    super(message);
  }
}
/**
 * An upstream HTTP service (OpenRouter, a summarizer, the `openai-proxy`'s API) failed: 502 unless `status` passes
 * the upstream's own on (the proxy does, with its `Retry-After`).
 */
export class UpstreamError extends EunoeError {
  readonly retryAfter?: string;
  constructor(
    message: string,
    readonly upstreamStatus?: number,
    options?: { cause?: unknown; status?: number; retryAfter?: string },
  ) {
    super('ERR_UPSTREAM', message, options?.status ?? 502, options);
    this.retryAfter = options?.retryAfter;
  }
}
/** 403: the read-only dashboard key used for anything but the dashboard's reads. */
export class ReadOnlyKeyError extends EunoeError {
  constructor(message = 'The dashboard key is read-only: it can read usage and status only') {
    super('ERR_READ_ONLY', message, 403);
  }
}
/** 503: a filter or pipe whose file failed to load was called. */
export class FilterNotLoadedError extends EunoeError {
  constructor(
    readonly filterId: string,
    reason: string,
  ) {
    super('ERR_FILTER_NOT_LOADED', `Filter ${filterId} is not loaded: ${reason}`, 503);
  }
}
/** 500: a pipe threw (with no status of its own) or returned something that is not an answer. */
export class PipeExecutionError extends EunoeError {
  constructor(
    readonly pipeId: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super('ERR_PIPE_FAILED', message, 500, options);
  }
}
/** 500: a value cannot be stored or used as asked (not JSON, or `increment` on a non-number). A bug, not an outage. */
export class StateValueError extends EunoeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_STATE_VALUE', message, 500, options);
  }
}
