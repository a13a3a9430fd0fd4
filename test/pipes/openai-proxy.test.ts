import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { startFakeOpenAI } from './helpers/fake-openai.js';
import { listen, postStream, sseContent, sseData } from './helpers/sse.js';
import { waitFor } from '../helpers/wait-for.js';

const user = { id: 'u-proxy', email: 'p@example.com', name: 'P', role: 'user' };
const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }];

describe('openai-proxy manifold against a loopback OpenAI upstream', () => {
  let runtime: TestRuntime;
  let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
  let server: Awaited<ReturnType<typeof listen>>;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
    runtime = await createTestRuntime({ filters: ['openai-proxy.ts', 'accounting.ts'] });
    server = await listen(runtime.app);
    await request(runtime.app)
      .post('/openai-proxy/valves/update')
      .set(runtime.auth)
      .send({ base_url: fake.url, api_key: 'sk-upstream', extra_body: '{"provider": {"sort": "price"}}' })
      .expect(200);
  });
  afterAll(async () => {
    await server.close();
    await runtime.dispose();
    await fake.close();
  });

  const chat = (model: string, extra: Record<string, unknown> = {}) =>
    request(runtime.app)
      .post('/v1/chat/completions')
      .set(runtime.auth)
      .send({ model: `openai-proxy.${model}`, user, messages: [{ role: 'user', content: 'Say hello' }], ...extra });
  const usage = async (userId: string) =>
    (await request(runtime.app).get(`/usage?user=${userId}`).set(runtime.auth).expect(200)).body;
  /** The user's records once there is one: the proxy records a reply after `[DONE]` went out. */
  const recorded = async (userId: string) =>
    waitFor(async () => (await usage(userId)).records as Array<Record<string, unknown>>, {
      until: (records) => records.length > 0,
    });

  it("lists the upstream's models (cached) as openai-proxy.<id>, named with the manifold's prefix", async () => {
    const models = await request(runtime.app).get('/models').set(runtime.auth).expect(200);
    const proxied = models.body.data.filter((model: { id: string }) => model.id.startsWith('openai-proxy.'));
    expect(proxied.slice(0, 2)).toEqual([
      expect.objectContaining({
        id: 'openai-proxy.gpt-4o-mini',
        name: 'Proxy: GPT-4o mini',
        pipeline: { type: 'manifold', valves: true },
      }),
      expect.objectContaining({ id: 'openai-proxy.openai/gpt-4o-cost', name: 'Proxy: openai/gpt-4o-cost' }),
    ]);
    const listCalls = fake.calls.filter((call) => call.path === '/models').length;
    await request(runtime.app).get('/models').set(runtime.auth).expect(200);
    expect(fake.calls.filter((call) => call.path === '/models').length).toBe(listCalls);
    expect(fake.calls.find((call) => call.path === '/models')?.headers.authorization).toBe('Bearer sk-upstream');
  });

  it('puts the name_prefix valve before each model name', async () => {
    const set = (name_prefix: string) =>
      request(runtime.app).post('/openai-proxy/valves/update').set(runtime.auth).send({ name_prefix }).expect(200);
    await set('OR: ');
    try {
      const models = await request(runtime.app).get('/models').set(runtime.auth).expect(200);
      expect(models.body.data.find((model: { id: string }) => model.id === 'openai-proxy.gpt-4o-mini')).toMatchObject({
        name: 'Proxy: OR: GPT-4o mini',
      });
    } finally {
      await set('');
    }
  });

  it('streams the reply, passes fields through, asks for usage and records it once', async () => {
    const response = await chat('gpt-4o-mini', { tools, temperature: 0.2 }).expect(200);
    expect(response.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(sseContent(response.text)).toBe('Hello from upstream');
    const events = sseData(response.text);
    expect(events.filter((data) => data === '[DONE]')).toHaveLength(1);
    expect(events.at(-1)).toBe('[DONE]');
    expect(JSON.parse(events.at(-2)!)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 12, completion_tokens: 5 },
    });
    const sent = fake.chatCalls().at(-1)!;
    expect(sent.body).toMatchObject({
      model: 'gpt-4o-mini',
      stream: true,
      stream_options: { include_usage: true },
      tools,
      temperature: 0.2,
      user: 'u-proxy',
      provider: { sort: 'price' },
    });
    expect(sent.headers.authorization).toBe('Bearer sk-upstream');
    const records = await recorded('u-proxy');
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      model: 'openai-proxy.gpt-4o-mini',
      promptTokens: 12,
      completionTokens: 5,
      cachedTokens: 2,
      usageSource: 'reported',
      messageId: expect.stringMatching(/^proxy:chatcmpl-up\d+:/),
    });
  });

  it("OpenRouter's reported cost is used first; non-stream answers the upstream's JSON", async () => {
    const response = await chat('openai/gpt-4o-cost', { stream: false, user: { ...user, id: 'u-cost' } }).expect(200);
    expect(response.body).toMatchObject({ object: 'chat.completion', usage: { cost: 0.00042 } });
    expect(response.body.choices[0].message.content).toBe('Hello from upstream');
    expect(fake.chatCalls().at(-1)!.body.stream_options).toBeUndefined();
    const ledger = await usage('u-cost');
    expect(ledger.records).toEqual([expect.objectContaining({ cost: '0.00042', costSource: 'reported' })]);
  });

  it('upstream 429 and 500 before the first byte are JSON errors with their status', async () => {
    const limited = await chat('rate-limited').expect(429);
    expect(limited.headers['content-type']).toMatch(/^application\/json/);
    expect(limited.body.detail).toBe('upstream 429: Rate limit reached for requests');
    expect(limited.headers['retry-after']).toBe('7');
    const broken = await chat('broken', { stream: false }).expect(500);
    expect(broken.body.detail).toMatch(/The server had an error/);
    expect(JSON.stringify(broken.body)).not.toContain('sk-upstream');
  });

  it('a stream cut in the middle ends with an SSE error event, no [DONE]', async () => {
    const response = await chat('cut').expect(200);
    const events = sseData(response.text);
    expect(events).not.toContain('[DONE]');
    expect(JSON.parse(events.at(-1)!)).toMatchObject({ choices: [], error: { code: 502 } });
    expect(sseContent(response.text)).toContain('Hello');
  });

  it('a provider error in the middle of a stream ends it with an error event carrying its code', async () => {
    const response = await chat('error-mid-stream').expect(200);
    const events = sseData(response.text);
    expect(events).not.toContain('[DONE]');
    expect(JSON.parse(events.at(-1)!)).toMatchObject({
      choices: [],
      error: { code: 503, message: 'upstream: Provider overloaded' },
    });
    expect(sseContent(response.text)).toBe('Hello');
  });

  it('streamed calls one after the other reuse one upstream connection (keep-alive)', async () => {
    const calls = fake.chatCalls().length;
    for (let turn = 0; turn < 3; turn += 1) await chat('gpt-4o-mini').expect(200);
    const ports = fake
      .chatCalls()
      .slice(calls)
      .map((call) => call.remotePort);
    expect(ports).toHaveLength(3);
    expect(new Set(ports).size).toBe(1);
  });

  it('a slow first byte is waited for', async () => {
    expect(sseContent((await chat('slow-first-byte').expect(200)).text)).toBe('Hello from upstream');
  });

  it('the first chunk reaches the client before the upstream finishes', async () => {
    const calls = fake.chatCalls().length;
    let upstreamFinishedAtFirstChunk: boolean | undefined;
    const response = await postStream(
      `${server.url}/chat/completions`,
      { model: 'openai-proxy.gated', user, messages: [{ role: 'user', content: 'hi' }] },
      runtime.auth,
      (text) => {
        if (upstreamFinishedAtFirstChunk === undefined && text.includes('Hello')) {
          upstreamFinishedAtFirstChunk = fake.chatCalls()[calls]!.finished;
          fake.release(); // the upstream goes on only now
        }
      },
    );
    expect(upstreamFinishedAtFirstChunk).toBe(false);
    expect(sseContent(response.text)).toBe('Hello from upstream');
  });

  it('a client disconnect aborts the upstream request', async () => {
    const calls = fake.chatCalls().length;
    await postStream(
      `${server.url}/chat/completions`,
      { model: 'openai-proxy.hang', user: { ...user, id: 'u-gone' }, messages: [{ role: 'user', content: 'hi' }] },
      runtime.auth,
      (text) => text.includes('Hello'),
    );
    await fake.chatCalls()[calls]!.aborted;
    expect(fake.chatCalls()[calls]!.finished).toBe(false);
    // What the upstream generated before the cancel is recorded, estimated from the text so far.
    const records = await waitFor(
      async () => (await usage('u-gone')).records as Array<{ usageSource: string; completionTokens: number }>,
      { until: (list) => list.length > 0 },
    );
    expect(records).toEqual([expect.objectContaining({ usageSource: 'estimated' })]);
    expect(records[0]!.completionTokens).toBeGreaterThan(0);
  });

  describe('the proxy and the accounting outlet record one reply once, whichever comes first', () => {
    const outlet = (userId: string, content: string, withLines = false) =>
      request(runtime.app)
        .post('/accounting/filter/outlet')
        .set(runtime.auth)
        .send({
          user: { ...user, id: userId },
          body: {
            model: 'openai-proxy.gpt-4o-mini',
            chat_id: 'c1',
            id: `m-${userId}`,
            session_id: 's',
            messages: [
              { id: 'q', role: 'user', content: 'Say hello' },
              {
                id: `m-${userId}`,
                role: 'assistant',
                content: withLines ? `${content}\n\ncontext: 1,000 → 500 tokens · 3 of 9 messages left out` : content,
                usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
              },
            ],
          },
        })
        .expect(200);

    it('proxy first, then the outlet (with a context note appended): one record, the proxy’s', async () => {
      await chat('gpt-4o-mini', { user: { ...user, id: 'u-order1' } }).expect(200);
      await recorded('u-order1');
      await outlet('u-order1', 'Hello from upstream', true);
      await outlet('u-order1', 'Hello from upstream', true); // a repeated outlet for the same message
      const ledger = await usage('u-order1');
      expect(ledger.records).toEqual([expect.objectContaining({ messageId: expect.stringMatching(/^proxy:/) })]);
    });

    it('outlet first, then the proxy: one record, the outlet’s', async () => {
      await outlet('u-order2', 'Hello from upstream');
      await chat('gpt-4o-mini', { user: { ...user, id: 'u-order2' } }).expect(200);
      const ledger = await usage('u-order2');
      expect(ledger.records).toEqual([expect.objectContaining({ messageId: 'm-u-order2' })]);
    });

    it('two replies with the same text are two records when each has its outlet', async () => {
      for (let turn = 0; turn < 2; turn += 1) {
        await chat('gpt-4o-mini', { user: { ...user, id: 'u-twice' } }).expect(200);
        await waitFor(async () => (await usage('u-twice')).records.length, { until: (count) => count > turn });
        await request(runtime.app)
          .post('/accounting/filter/outlet')
          .set(runtime.auth)
          .send({
            user: { ...user, id: 'u-twice' },
            body: {
              model: 'openai-proxy.gpt-4o-mini',
              id: `m-twice-${turn}`,
              messages: [{ id: `m-twice-${turn}`, role: 'assistant', content: 'Hello from upstream' }],
            },
          })
          .expect(200);
      }
      expect((await usage('u-twice')).records).toHaveLength(2);
    });
  });
});
