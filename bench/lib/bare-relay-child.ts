/**
 * Child-process entry of `bench:proxy`: the least a Node.js relay can do, as a floor for Eunoe's
 * figures. A bare `node:http` server that forwards each request body to the upstream's
 * `/chat/completions` through an undici keep-alive pool and writes every piece of the answer to
 * the client as it arrives: no routing, no key check, no parsing, no accounting. Argv: `<upstream url>`.
 * Tells the parent its URL over IPC (`{url}`), stops on SIGTERM.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';

const [upstreamUrl = ''] = process.argv.slice(2);
const pool = new Pool(upstreamUrl, { connections: 256, keepAliveTimeout: 60_000 });

const server = http.createServer(async (request, response) => {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  try {
    const upstream = await pool.request({
      path: '/chat/completions',
      method: 'POST',
      body: Buffer.concat(parts),
      headers: { 'content-type': 'application/json' },
    });
    response.writeHead(upstream.statusCode, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for await (const piece of upstream.body) response.write(piece);
    response.end();
  } catch (error) {
    response.destroy(error as Error);
  }
});
server.keepAliveTimeout = 60_000;
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
process.on('SIGTERM', () => {
  server.close();
  void pool.close().then(() => process.exit(0));
});
process.send?.({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
