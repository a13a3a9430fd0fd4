import { listenOnLoopback } from '../../helpers/loopback-server.js';

/** A route of the loopback file server: a body, a status, a delay or a huge stream. */
export type LoopbackRoute =
  | { kind: 'file'; body: string }
  | { kind: 'status'; status: number }
  | { kind: 'slow'; delayMs: number; body: string }
  | { kind: 'huge'; bytes: number; declareLength: boolean }
  | { kind: 'redirect'; location: string };

/** A real HTTP server on 127.0.0.1:<free port> serving filter sources to `/pipelines/add`. */
export interface LoopbackServer {
  url(pathname: string): string;
  /** Paths requested so far (raw, as the client sent them). */
  hits: string[];
  close(): Promise<void>;
}

export async function startLoopback(routes: Record<string, LoopbackRoute>): Promise<LoopbackServer> {
  const hits: string[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const loopback = await listenOnLoopback((request, response) => {
    const pathname = (request.url ?? '/').split('?')[0]!;
    hits.push(pathname);
    const route = routes[pathname];
    if (!route) {
      response.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    switch (route.kind) {
      case 'file':
        response.writeHead(200, { 'Content-Type': 'text/plain' }).end(route.body);
        return;
      case 'status':
        response.writeHead(route.status, { 'Content-Type': 'text/plain' }).end('nope');
        return;
      case 'redirect':
        response.writeHead(302, { Location: route.location }).end();
        return;
      case 'slow': {
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!response.destroyed) response.writeHead(200).end(route.body);
        }, route.delayMs);
        timers.add(timer);
        return;
      }
      case 'huge': {
        response.writeHead(200, route.declareLength ? { 'Content-Length': String(route.bytes) } : {});
        const chunk = Buffer.alloc(16 * 1024, 'a');
        let sent = 0;
        const pump = () => {
          while (sent < route.bytes) {
            const part = chunk.subarray(0, Math.min(chunk.length, route.bytes - sent));
            sent += part.length;
            if (!response.write(part)) {
              response.once('drain', pump);
              return;
            }
          }
          response.end();
        };
        response.on('error', () => undefined);
        pump();
        return;
      }
    }
  });
  return {
    url: (pathname) => `${loopback.origin}${pathname}`,
    hits,
    async close() {
      for (const timer of timers) clearTimeout(timer);
      await loopback.close();
    },
  };
}
