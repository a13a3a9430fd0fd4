import type { ErrorCode } from './codes.js';

/**
 * Base of every typed error. The HTTP layer serialises any EunoeError to `{"detail": message}` with
 * `status`; `code` (from ERROR_CODES, or a filter's own through FilterError) goes to the logs and metrics.
 */
export class EunoeError extends Error {
  constructor(
    readonly code: ErrorCode | (string & {}),
    message: string,
    readonly status: number = 500,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}
