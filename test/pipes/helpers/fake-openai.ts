import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the fake upstream received. */
export interface UpstreamCall {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
  /** Resolves when the client closed the connection before the answer was complete. */
  aborted: Promise<void>;
  /** Whether the answer was completely sent. */
  finished: boolean;
  /** The client's port: the same for two calls means one keep-alive connection. */
  remotePort?: number;
}

/**
 * A loopback server speaking OpenAI's wire format (chat completions, streamed or not, usage in the last
 * chunk, OpenRouter's `cost`), with scenarios chosen by the model id:
 * `…-cost` adds `usage.cost`; `rate-limited` answers 429 with Retry-After; `broken` 500;
 * `cut` stops the stream in the middle; `gated` waits for `release()` after the first chunk;
 * `hang` never ends after the first chunk; `slow-first-byte` waits `firstByteDelayMs` before answering;
 * `error-mid-stream` sends a provider error event (OpenRouter's shape) after the first chunk.
 */
export async function startFakeOpenAI(
  options: {
    chunks?: string[];
    delayMs?: number;
    firstByteDelayMs?: number;
    models?: Array<{ id: string; name?: string }>;
  } = {},
) {
  const chunks = options.chunks ?? ['Hello', ' from', ' upstream'];
  const calls: UpstreamCall[] = [];
  let releaseGate: () => void = () => undefined;
  let gate = new Promise<void>((resolve) => {
    releaseGate = resolve;
  });
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  const usageFor = (model: string) => ({
    prompt_tokens: 12,
    completion_tokens: 5,
    total_tokens: 17,
    prompt_tokens_details: { cached_tokens: 2 },
    ...(model.endsWith('-cost') ? { cost: 0.00042 } : {}),
  });
  let served = 0;
  const chunk = (model: string, delta: Record<string, unknown>, finish: string | null = null) => ({
    id: `chatcmpl-up${served}`,
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model,
    system_fingerprint: 'fp_test',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });

  const server = http.createServer(async (request, response) => {
    let raw = '';
    for await (const piece of request) raw += piece;
    let aborted!: () => void;
    const call: UpstreamCall = {
      path: request.url ?? '/',
      headers: request.headers,
      body: raw ? (JSON.parse(raw) as Record<string, unknown>) : {},
      aborted: new Promise<void>((resolve) => {
        aborted = resolve;
      }),
      finished: false,
      remotePort: request.socket.remotePort,
    };
    calls.push(call);
    response.on('close', () => {
      if (!call.finished) aborted();
    });
    if (request.method === 'GET' && call.path === '/models') {
      const scenarios = ['rate-limited', 'broken', 'cut', 'gated', 'hang', 'slow-first-byte', 'error-mid-stream'].map(
        (id) => ({ id }),
      );
      const data = options.models ?? [
        { id: 'gpt-4o-mini', name: 'GPT-4o mini' },
        { id: 'openai/gpt-4o-cost' },
        ...scenarios,
      ];
      call.finished = true;
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data }));
      return;
    }
    const model = String(call.body.model);
    served += 1;
    if (model === 'slow-first-byte') await pause(options.firstByteDelayMs ?? 50);
    if (model === 'rate-limited') {
      call.finished = true;
      response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '7' }).end(
        JSON.stringify({
          error: { message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded' },
        }),
      );
      return;
    }
    if (model === 'broken') {
      call.finished = true;
      response
        .writeHead(500, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: 'The server had an error', type: 'server_error' } }));
      return;
    }
    if (call.body.stream !== true) {
      call.finished = true;
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: `chatcmpl-up${served}`,
          object: 'chat.completion',
          created: 1_700_000_000,
          model,
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: chunks.join('') },
              logprobs: null,
              finish_reason: 'stop',
            },
          ],
          usage: usageFor(model),
        }),
      );
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    response.flushHeaders();
    const send = (data: unknown) =>
      response.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
    response.write(': OPENROUTER PROCESSING\n\n');
    send(chunk(model, { role: 'assistant', content: '' }));
    for (const [index, text] of chunks.entries()) {
      if (response.destroyed) return;
      send(chunk(model, { content: text }));
      if (index === 0 && model === 'gated') await gate;
      if (index === 0 && model === 'hang') return; // the client must close it
      if (index === 0 && model === 'error-mid-stream') {
        send({ error: { code: 503, message: 'Provider overloaded' }, choices: [] });
        call.finished = true;
        response.end();
        return;
      }
      if (index === 1 && model === 'cut') {
        // Cut once what was written has left: the client got part of the stream, then a reset.
        await new Promise((resolve) => response.write('', resolve));
        response.socket?.destroy();
        return;
      }
      if (options.delayMs) await pause(options.delayMs);
    }
    send(chunk(model, {}, 'stop'));
    const include = (call.body.stream_options as { include_usage?: boolean } | undefined)?.include_usage;
    if (include) send({ ...chunk(model, {}), choices: [], usage: usageFor(model) });
    send('[DONE]');
    call.finished = true;
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    chatCalls: () => calls.filter((call) => call.path === '/chat/completions'),
    release() {
      releaseGate();
      gate = new Promise<void>((resolve) => {
        releaseGate = resolve;
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
