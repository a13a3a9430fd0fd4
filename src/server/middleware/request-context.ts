import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from '../../core/util/logger.js';

/** What a route adds to its request's access line, when it knows it. */
export interface AccessFields {
  filter?: string;
  user?: string;
  chat?: string;
}

declare module 'express-serve-static-core' {
  interface Request {
    id: string;
    log: Logger;
  }
}

/**
 * Request id (from `X-Request-Id` or new) on a child logger, `X-Process-Time` (whole
 * seconds, like the Python server) plus `Server-Timing`, permissive CORS, one access log line.
 */
export function requestContext(logger: Logger): RequestHandler {
  return (request, response, next) => {
    const started = process.hrtime.bigint();
    const incoming = request.headers['x-request-id'];
    request.id = typeof incoming === 'string' && /^[\w.-]{1,100}$/.test(incoming) ? incoming : randomUUID();
    request.log = logger.child({ reqId: request.id });
    response.setHeader('X-Request-Id', request.id);
    const origin = request.headers.origin;
    response.setHeader('Access-Control-Allow-Origin', origin ?? '*');
    if (origin) response.setHeader('Vary', 'Origin');
    response.setHeader('Access-Control-Allow-Credentials', 'true');
    response.setHeader('Access-Control-Allow-Methods', 'GET,POST,PUT,PATCH,DELETE,OPTIONS');
    response.setHeader('Access-Control-Allow-Headers', request.headers['access-control-request-headers'] ?? '*');
    const writeHead = response.writeHead;
    response.writeHead = function patched(this: typeof response, ...args: Parameters<typeof writeHead>) {
      const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
      if (!this.headersSent) {
        this.setHeader('X-Process-Time', String(Math.floor(elapsedMs / 1000)));
        this.setHeader('Server-Timing', `total;dur=${elapsedMs.toFixed(1)}`);
      }
      return writeHead.apply(this, args);
    } as typeof writeHead;
    response.on('finish', () => {
      const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
      request.log.info(
        {
          // Set by the routes that know them (filter hooks): filter id, user id, chat id.
          ...(response.locals.access as AccessFields | undefined),
          method: request.method,
          path: request.originalUrl.split('?')[0],
          status: response.statusCode,
          ms: Math.round(elapsedMs * 10) / 10,
        },
        'request',
      );
    });
    if (request.method === 'OPTIONS') {
      response.status(204).end();
      return;
    }
    next();
  };
}
