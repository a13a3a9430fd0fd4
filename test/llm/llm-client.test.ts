import { afterEach, describe, expect, it } from 'vitest';
import { LlmClient } from '../../src/domain/llm/llm-client.js';
import { waitFor } from '../helpers/wait-for.js';
import { LlmError } from '../../src/domain/llm/llm-errors.js';
import {
  bagOfWords,
  chatReply,
  embeddingReply,
  startLoopback,
  type LoopbackServer,
} from './helpers/loopback-openai.js';

const KEY = 'sk-test-SECRET-4f9a2c';
let server: LoopbackServer;
afterEach(async () => server?.close());

const client = (options: Partial<ConstructorParameters<typeof LlmClient>[0]> = {}) =>
  new LlmClient({ baseUrl: server.url, apiKey: KEY, model: 'mini', backoffMs: 5, maxRetryDelayMs: 50, ...options });
const ask = (llm: LlmClient, signal?: AbortSignal) =>
  llm.chat({ messages: [{ role: 'user', content: 'hi' }], maxTokens: 20, signal });
const failure = async (promise: Promise<unknown>): Promise<LlmError> => {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(LlmError);
  return error as LlmError;
};

describe('LlmClient', () => {
  it('sends model, bearer key, max_tokens and the extra body, and returns the answer without think blocks', async () => {
    server = await startLoopback(() => chatReply('<think>hmm</think>\n  The answer. '));
    const text = await ask(client({ extraBody: { provider: { sort: 'price' } } }));
    expect(text).toBe('The answer.');
    const [request] = server.requests;
    expect(request!.path).toBe('/v1/chat/completions');
    expect(request!.authorization).toBe(`Bearer ${KEY}`);
    expect(request!.body).toMatchObject({
      model: 'mini',
      max_tokens: 20,
      provider: { sort: 'price' },
      messages: [{ role: 'user', content: 'hi' }],
    });
  });

  it('sends no authorization header without a key (local servers)', async () => {
    server = await startLoopback(() => chatReply('ok'));
    await ask(client({ apiKey: '' }));
    expect(server.requests[0]!.authorization).toBeUndefined();
  });

  it('retries a 500 and a 429 (honouring a Retry-After cut to the bound) and then succeeds', async () => {
    server = await startLoopback((_, n) =>
      n === 0
        ? { status: 500, json: { error: 'boom' } }
        : n === 1
          ? { status: 429, headers: { 'retry-after': '3600' }, json: {} }
          : chatReply('fine'),
    );
    expect(await ask(client({ retries: 2 }))).toBe('fine');
    expect(server.chatCalls()).toBe(3);
  });

  it('gives up after the configured retries with a typed error carrying the status', async () => {
    server = await startLoopback(() => ({ status: 503, json: { error: 'down' } }));
    const error = await failure(ask(client({ retries: 2 })));
    expect(error).toMatchObject({ failure: 'http', upstreamStatus: 503, attempts: 3, code: 'ERR_UPSTREAM' });
    expect(server.chatCalls()).toBe(3);
  });

  it('does not retry a 400', async () => {
    server = await startLoopback(() => ({ status: 400, json: { error: 'bad request' } }));
    expect(await failure(ask(client()))).toMatchObject({ failure: 'http', upstreamStatus: 400 });
    expect(server.chatCalls()).toBe(1);
  });

  it('times out a slow answer and does not retry it', async () => {
    server = await startLoopback(() => ({ ...chatReply('late'), delayMs: 2000 }));
    expect(await failure(ask(client({ timeoutMs: 100 })))).toMatchObject({ failure: 'timeout' });
    expect(server.chatCalls()).toBe(1);
  });

  it('stops when the caller aborts (inlet cancelled)', async () => {
    server = await startLoopback(() => ({ ...chatReply('late'), delayMs: 2000 }));
    const controller = new AbortController();
    const pending = ask(client(), controller.signal);
    await waitFor(() => server.chatCalls() > 0, { intervalMs: 5 });
    controller.abort();
    expect(await failure(pending)).toMatchObject({ failure: 'aborted' });
  });

  it.each([
    ['non-JSON', { text: '<html>oops</html>' }],
    ['JSON without choices', { json: { result: 'x' } }],
    ['a non-string content', { json: { choices: [{ message: { content: 42 } }] } }],
  ])('rejects garbage (%s) as a response error', async (_name, reply) => {
    server = await startLoopback(() => reply);
    expect(await failure(ask(client()))).toMatchObject({ failure: 'response' });
  });

  it('keeps at most `concurrency` calls in flight', async () => {
    server = await startLoopback(() => ({ ...chatReply('ok'), delayMs: 40 }));
    const llm = client({ concurrency: 2 });
    await Promise.all(Array.from({ length: 6 }, () => ask(llm)));
    expect(server.chatCalls()).toBe(6);
    expect(server.maxInFlight).toBe(2);
  });

  it('never puts the key into an error message, even when the server echoes it', async () => {
    server = await startLoopback(() => ({
      status: 401,
      json: { error: { message: `Incorrect API key provided: ${KEY}` } },
    }));
    const error = await failure(ask(client()));
    expect(error.message).toContain('401');
    expect(error.message).toContain('[redacted]');
    expect(JSON.stringify({ message: error.message, stack: error.stack })).not.toContain(KEY);
  });

  it('returns embeddings in input order whatever the order of the answer', async () => {
    server = await startLoopback((request) => embeddingReply(request.body.input));
    const llm = client({ embeddingModel: 'embed-small' });
    const vectors = await llm.embed({ texts: ['alpha beta', 'gamma delta'] });
    expect(server.requests[0]!.body).toMatchObject({ model: 'embed-small', input: ['alpha beta', 'gamma delta'] });
    expect(vectors).toEqual([bagOfWords('alpha beta'), bagOfWords('gamma delta')]);
    expect(vectors[0]).not.toEqual(vectors[1]);
  });

  it('rejects an embeddings answer that lacks a vector', async () => {
    server = await startLoopback(() => ({ json: { data: [{ index: 0, embedding: [1, 2] }] } }));
    expect(await failure(client().embed({ texts: ['a', 'b'] }))).toMatchObject({ failure: 'response' });
  });
});
