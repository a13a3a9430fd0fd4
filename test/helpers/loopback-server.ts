import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A real HTTP server on 127.0.0.1 at a free port. */
export interface LoopbackHttp {
  server: http.Server;
  port: number;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Drop open connections (keep-alive, answers still pending) and stop listening. */
  close(): Promise<void>;
}

/**
 * The suite's one loopback server: every stand-in for an outside service (OpenRouter, an
 * OpenAI-compatible LLM, a file host) is a real HTTP server started here, speaking that
 * service's wire format in `handler`.
 */
export async function listenOnLoopback(handler: http.RequestListener): Promise<LoopbackHttp> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    server,
    port,
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
