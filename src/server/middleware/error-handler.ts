import type { ErrorRequestHandler, RequestHandler } from 'express';
import { EunoeError, NotFoundError, reasonPhrase, ValidationError } from '../../core/errors/index.js';

/** A request that announced a body not (yet) fully received. */
function hasUnreadBody(request: Parameters<ErrorRequestHandler>[1]): boolean {
  const length = Number(request.headers['content-length'] ?? 0);
  return (request.headers['transfer-encoding'] !== undefined || length > 0) && !request.complete;
}

/** Unknown routes: JSON 404, never an HTML page. */
export const notFound: RequestHandler = (_request, _response, next) => next(new NotFoundError('Not Found'));

/**
 * Every error becomes `{"detail": "..."}` JSON with its status: typed errors keep theirs,
 * body-parser failures map to 400/413, anything else is a 500 with a generic message. The detail is also the
 * status line's reason phrase (ASCII, one line, bounded: `reasonPhrase`), because that is all a client that checks
 * the status before reading the body shows: Open WebUI's Pipelines client, for a filter's refusal (`FilterError`).
 */
export const errorHandler: ErrorRequestHandler = (error, request, response, _next) => {
  let status = 500;
  let detail = 'Internal Server Error';
  let extra: Record<string, unknown> = {};
  if (error instanceof EunoeError) {
    status = error.status;
    detail = error.message;
    if (error instanceof ValidationError && error.fields.length) extra = { errors: error.fields };
    // Routes whose callers are programs (the Open WebUI Function) ask for the code: it tells a refusal from a failure.
    if (response.locals.errorCode === true) extra.code = error.code;
  } else if (error?.type === 'entity.too.large' || error?.status === 413) {
    status = 413;
    detail = `Request body too large (limit ${error.limit ?? 'reached'} bytes)`;
  } else if (error?.type === 'entity.parse.failed') {
    status = 400;
    detail = `Invalid JSON body: ${error.message}`;
  } else if (typeof error?.status === 'number' && error.status >= 400 && error.status < 500) {
    status = error.status;
    detail = error.message || detail;
  }
  const log = request.log ?? console;
  if (status >= 500)
    log.error(
      {
        err:
          error instanceof Error
            ? { message: error.message, stack: error.stack, code: (error as EunoeError).code }
            : error,
        status,
      },
      'request failed',
    );
  else log.info({ status, detail }, 'request rejected');
  if (response.headersSent) return;
  // Answered before its body was read (a 401, an oversized Content-Length): close the connection
  // after the answer instead of letting Node read and discard the rest of the body.
  if (hasUnreadBody(request)) response.setHeader('Connection', 'close');
  const phrase = reasonPhrase(detail);
  if (phrase) response.statusMessage = phrase;
  response.status(status).json({ detail, ...extra });
};
