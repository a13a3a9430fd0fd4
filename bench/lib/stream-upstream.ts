import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback OpenAI-compatible upstream for benchmarks: `POST /chat/completions` streams
 * `chunks` content chunks (one write each, yielding to the event loop between them), a finish
 * chunk, a usage chunk and `[DONE]`; `GET /models` lists `bench-model`. With `delayMs`, chunks are
 * paced like a model generating tokens (at least `delayMs` apart).
 */
export async function startStreamUpstream(
  chunks: number,
  delayMs = 0,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(async (request, response) => {
    for await (const _ of request) {
      // drain the body
    }
    if (request.method === 'GET') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ object: 'list', data: [{ id: 'bench-model' }] }));
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.socket?.setNoDelay(true);
    const chunk = (delta: object, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1, model: 'bench-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    for (let index = 0; index < chunks; index++) {
      if (response.destroyed) return;
      response.write(chunk({ content: `token${index} ` }));
      await new Promise((resolve) => (delayMs ? setTimeout(resolve, delayMs) : setImmediate(resolve)));
    }
    response.write(chunk({}, 'stop'));
    response.write(
      `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 20, completion_tokens: chunks, total_tokens: 20 + chunks } })}\n\n`,
    );
    response.end('data: [DONE]\n\n');
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
