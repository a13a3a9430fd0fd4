import http from 'node:http';
import type { Socket } from 'node:net';
import type { RequestListener } from 'node:http';
import { deferContinue } from './middleware/expect-continue.js';

/** Socket-level time limits of the HTTP server (README: Configuration). */
export interface HttpTimeouts {
  /** Time to receive a request's headers. */
  headersTimeoutMs: number;
  /** Time to receive a whole request, body included. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
}

/** What Node's own HTTP parser rejects (slow or malformed requests), as JSON like every other error. */
const CLIENT_ERRORS: Record<string, [number, string, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [
    408,
    'Request Timeout',
    'Request not received in time (HEADERS_TIMEOUT_MS / REQUEST_TIMEOUT_MS)',
  ],
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'Request headers too large'],
};

/**
 * Answer a request Node's parser gave up on (timeout, malformed HTTP) with a JSON error and
 * close the connection, unless a response has already started on it (then just close).
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  // `_httpMessage` is the response in flight on this socket (Node's own check in socketOnError).
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const [status, reason, detail] = CLIENT_ERRORS[error.code ?? ''] ?? [
    400,
    'Bad Request',
    `Malformed HTTP request (${error.code ?? error.message})`,
  ];
  const body = JSON.stringify({ detail });
  const head = [
    `HTTP/1.1 ${status} ${reason}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`, () => socket.destroy());
}

/**
 * The HTTP server for the app, with time limits on slow clients: headers within
 * `headersTimeoutMs`, the whole request within `requestTimeoutMs` (both answered 408 JSON and
 * closed), idle keep-alive connections closed after `keepAliveTimeoutMs`. Node checks the first
 * two every `connectionsCheckingInterval`, set here to a fraction of the shorter limit. A client
 * that sends `Expect: 100-continue` is invited to send its body only after the API key check.
 */
export function createHttpServer(app: RequestListener, timeouts: HttpTimeouts): http.Server {
  const checkEvery = Math.max(
    50,
    Math.min(1000, Math.floor(Math.min(timeouts.headersTimeoutMs, timeouts.requestTimeoutMs) / 4)),
  );
  const server = http.createServer(
    {
      headersTimeout: timeouts.headersTimeoutMs,
      requestTimeout: timeouts.requestTimeoutMs,
      keepAliveTimeout: timeouts.keepAliveTimeoutMs,
      connectionsCheckingInterval: checkEvery,
    },
    app,
  );
  server.keepAliveTimeout = timeouts.keepAliveTimeoutMs;
  server.on('clientError', answerClientError);
  // `Expect: 100-continue`: the app sends "100 Continue" only once the API key is accepted.
  server.on('checkContinue', (request: http.IncomingMessage, response: http.ServerResponse) => {
    deferContinue(request);
    app(request, response);
  });
  return server;
}

/**
 * Create the server (see createHttpServer) and listen on `PORT`/`HOST`; `callback` gets the
 * listen error (port in use, no permission) or nothing once listening, like express's `app.listen`.
 */
export function listenHttp(
  app: RequestListener,
  config: {
    PORT: number;
    HOST: string;
    HEADERS_TIMEOUT_MS: number;
    REQUEST_TIMEOUT_MS: number;
    KEEP_ALIVE_TIMEOUT_MS: number;
  },
  callback: (error?: Error) => void,
): http.Server {
  const server = createHttpServer(app, {
    headersTimeoutMs: config.HEADERS_TIMEOUT_MS,
    requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: config.KEEP_ALIVE_TIMEOUT_MS,
  });
  let called = false;
  const once = (error?: Error) => {
    if (called) return;
    called = true;
    callback(error);
  };
  server.once('error', once);
  server.listen(config.PORT, config.HOST, () => once());
  return server;
}
