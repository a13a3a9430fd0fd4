/**
 * Base of every typed error. The HTTP layer serialises any EunoeError to
 * `{"detail": message}` with `status`; `code` goes to the logs and the README's error table.
 */
export class EunoeError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number = 500,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}
