import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { keepAliveClient } from './keep-alive-client.js';

/** A bare node:http server that parses each JSON request and answers its `body` re-serialised: the floor of any JSON filter over HTTP. */
export interface EchoServer {
  post(payload: string): Promise<{ status: number; text: string }>;
  close(): Promise<void>;
}

/** Starts the echo server on 127.0.0.1 with its own keep-alive client (the same client shape as the Eunoe target). */
export async function startEchoServer(): Promise<EchoServer> {
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { body?: unknown };
      const text = JSON.stringify(parsed.body ?? null);
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      response.end(text);
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const client = keepAliveClient(port, 'echo');
  const post = (payload: string) => client.post('/echo', payload);
  return {
    post,
    async close() {
      client.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
