import { afterEach, describe, expect, it } from 'vitest';
import { fetchModels } from '../../src/domain/pricing/fetch-models.js';
import { UpstreamError } from '../../src/core/errors/index.js';
import { modelList, sendJson, startOpenRouter } from './helpers/openrouter-server.js';

const noSleep = async () => {};
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

describe('fetchModels against a loopback OpenRouter', () => {
  it('parses the real capture and skips malformed entries', async () => {
    const server = await startOpenRouter((_request, response) => {
      const body = modelList();
      body.data.push({ id: 42 } as never, { name: 'no id', pricing: {} } as never);
      sendJson(response, body);
    });
    close = server.close;
    const result = await fetchModels({ url: server.url, timeoutMs: 2000 });
    expect(result.models).toHaveLength(335);
    expect(result.skipped).toBe(2);
  });

  it('retries a 500 with backoff and succeeds', async () => {
    const delays: number[] = [];
    const server = await startOpenRouter((_request, response, count) =>
      count < 3 ? sendJson(response, { error: 'boom' }, 500) : sendJson(response, modelList(3)),
    );
    close = server.close;
    const result = await fetchModels({
      url: server.url,
      timeoutMs: 2000,
      retries: 2,
      backoffMs: 100,
      sleep: async (ms) => void delays.push(ms),
    });
    expect(result.models).toHaveLength(3);
    expect(server.requests()).toBe(3);
    expect(delays).toEqual([100, 200]);
  });

  it('gives up after the retries with an UpstreamError carrying the status', async () => {
    const server = await startOpenRouter((_request, response) => sendJson(response, { error: 'down' }, 503));
    close = server.close;
    const failure = await fetchModels({ url: server.url, timeoutMs: 2000, retries: 1, sleep: noSleep }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(UpstreamError);
    expect((failure as UpstreamError).upstreamStatus).toBe(503);
    expect(server.requests()).toBe(2);
  });

  it('does not retry a 404', async () => {
    const server = await startOpenRouter((_request, response) => sendJson(response, { error: 'nope' }, 404));
    close = server.close;
    await expect(fetchModels({ url: server.url, timeoutMs: 2000, retries: 3, sleep: noSleep })).rejects.toThrow(
      /HTTP 404/,
    );
    expect(server.requests()).toBe(1);
  });

  it('times out a server that never answers', async () => {
    const server = await startOpenRouter(() => {});
    close = server.close;
    const started = Date.now();
    await expect(fetchModels({ url: server.url, timeoutMs: 200, retries: 1, sleep: noSleep })).rejects.toBeInstanceOf(
      UpstreamError,
    );
    expect(Date.now() - started).toBeLessThan(3000);
    expect(server.requests()).toBe(2);
  });

  it('rejects garbage: not JSON, and JSON without data[]', async () => {
    const server = await startOpenRouter((_request, response, count) => {
      if (count === 1) {
        response.writeHead(200, { 'content-type': 'text/html' });
        response.end('<html>Cloudflare</html>');
      } else sendJson(response, { models: [] });
    });
    close = server.close;
    await expect(fetchModels({ url: server.url, timeoutMs: 2000, sleep: noSleep })).rejects.toThrow(/not JSON/);
    await expect(fetchModels({ url: server.url, timeoutMs: 2000, sleep: noSleep })).rejects.toThrow(/no data/);
  });

  it('caps the response size, declared or streamed', async () => {
    const server = await startOpenRouter((_request, response, count) => {
      if (count === 1) sendJson(response, modelList());
      else {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write('{"data":[');
        response.end(`${'{"id":"x","pricing":{}},'.repeat(5000)}{"id":"y","pricing":{}}]}`);
      }
    });
    close = server.close;
    await expect(fetchModels({ url: server.url, timeoutMs: 2000, maxBytes: 10_000 })).rejects.toThrow(/too large/);
    await expect(fetchModels({ url: server.url, timeoutMs: 2000, maxBytes: 10_000 })).rejects.toThrow(/too large/);
  });
});
