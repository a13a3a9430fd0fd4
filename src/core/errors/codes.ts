/**
 * Every error code Eunoe answers with or stops on, with the status it answers (`filter`: the status the filter
 * chose; `upstream`: the upstream's own; `start-up`: not an answer, the process exits 78). The one catalogue: each
 * typed error takes its code from here, and a test checks that the docs' error table lists exactly these.
 */
export const ERROR_CODES = {
  ERR_VALIDATION: 400,
  ERR_UNAUTHORIZED: 401,
  ERR_READ_ONLY: 403,
  ERR_NOT_FOUND: 404,
  ERR_METHOD_NOT_ALLOWED: 405,
  ERR_TOO_LARGE: 413,
  ERR_UNSUPPORTED_MEDIA_TYPE: 415,
  ERR_FILTER_REJECTED: 'filter',
  ERR_SPEND_LIMIT: 429,
  ERR_RATE_LIMIT: 429,
  ERR_FILTER_FAILED: 500,
  ERR_PIPE_FAILED: 500,
  ERR_FILTER_CRASHED: 500,
  ERR_STATE_VALUE: 500,
  ERR_UPSTREAM: 'upstream',
  ERR_FILTER_NOT_LOADED: 503,
  ERR_STATE_UNAVAILABLE: 503,
  ERR_FILTER_TIMEOUT: 504,
  ERR_CONFIG: 'start-up',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;
