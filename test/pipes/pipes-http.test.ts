import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { globalLatch, pipeSource } from './helpers/pipe-source.js';
import { listen, postStream, sseContent, sseData } from './helpers/sse.js';

const g = globalThis as Record<string, unknown>;

const sources: Record<string, string> = {
  'echo.ts': pipeSource(`export default definePipe({
  name: 'Echo',
  valves: z.object({ prefix: z.string().default('echo: ').describe('Put before the reply') }),
  pipe: ({ userMessage, valves }) => valves.prefix + userMessage,
});`),
  'async-echo.ts': pipeSource(`export default definePipe({
  async pipe({ userMessage, modelId, model, stream, user }) {
    await new Promise((resolve) => setImmediate(resolve));
    return JSON.stringify({ userMessage, modelId, model, stream, user });
  },
});`),
  'generator.ts': pipeSource(`export default definePipe({
  async *pipe() {
    yield 'a';
    yield '';
    yield { id: 'x', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'b' }, finish_reason: null }] };
    yield 'data: {"choices":[{"index":0,"delta":{"content":"c"}}]}';
    yield new TextEncoder().encode('d');
  },
});`),
  'sync-generator.ts': pipeSource(`export default definePipe({
  *pipe() { yield 'x'; yield 'y'; },
});`),
  'whole.ts': pipeSource(`export default definePipe({
  pipe: ({ model }) => ({
    id: 'up-1', object: 'chat.completion', created: 1, model,
    choices: [{ index: 0, message: { role: 'assistant', content: 'whole answer' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
  }),
});`),
  'gated.ts': pipeSource(`export default definePipe({
  async *pipe() {
    globalThis.gatedDone = false;
    yield 'first';
    await globalThis.gate.promise;
    yield 'second';
    globalThis.gatedDone = true;
  },
});`),
  'abortable.ts': pipeSource(`export default definePipe({
  async *pipe({ signal }) {
    yield 'first';
    await new Promise((resolve) => signal.addEventListener('abort', resolve));
    globalThis.aborted.resolve(String(signal.reason?.message ?? signal.reason));
  },
});`),
  'fails-early.ts': pipeSource(`export default definePipe({
  async *pipe() { throw new FilterError(429, 'slow down'); },
});`),
  'fails-sync.ts': pipeSource(`export default definePipe({
  pipe() { throw new Error('no upstream configured'); },
});`),
  'fails-late.ts': pipeSource(`export default definePipe({
  async *pipe() { yield 'partial'; throw new Error('upstream broke'); },
});`),
  'many.ts': pipeSource(`export default definePipe({
  name: 'Many: ',
  models: async () => {
    globalThis.modelsCalls = (globalThis.modelsCalls ?? 0) + 1;
    return [{ id: 'one', name: 'One' }, { id: 'two.b' }];
  },
  pipe: ({ modelId }) => 'child ' + modelId,
});`),
  'passthrough-filter.ts': pipeSource(`export default defineFilter({
  inlet: ({ body }) => ({ ...body, seen: true }),
});`),
};

const chat = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  messages: [
    { role: 'user', content: 'hello' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 't1', type: 'function', function: { name: 'f', arguments: '{}' } }],
    },
    { role: 'tool', tool_call_id: 't1', content: 'result' },
    { role: 'user', content: [{ type: 'text', text: 'last question' }] },
  ],
  ...extra,
});

describe('pipes over HTTP', () => {
  let runtime: TestRuntime;
  let server: Awaited<ReturnType<typeof listen>>;
  beforeAll(async () => {
    // Main-thread loading keeps this suite quick; test/pipes/pipe-reload.test.ts covers the default isolation path.
    runtime = await createTestRuntime({ sources, env: { FILTER_ISOLATION: 'off' } });
    server = await listen(runtime.app);
  });
  afterAll(async () => {
    await server.close();
    await runtime.dispose();
  });
  const post = (path: string, body: object) => request(runtime.app).post(path).set(runtime.auth).send(body);

  it('loads pipes through the real loader beside filters', async () => {
    const pipelines = await request(runtime.app).get('/pipelines').set(runtime.auth).expect(200);
    const byId = Object.fromEntries(pipelines.body.data.map((entry: { id: string }) => [entry.id, entry]));
    expect(byId.echo).toMatchObject({ type: 'pipe', status: 'loaded', isolation: 'main' });
    expect(byId.many).toMatchObject({ type: 'manifold', status: 'loaded' });
    expect(byId['passthrough-filter']).toMatchObject({ type: 'filter' });
    expect(pipelines.body.data.filter((entry: { status: string }) => entry.status === 'failed')).toEqual([]);
  });

  it('GET /models lists pipes and manifold children with pipeline.type; filters keep their shape', async () => {
    for (const prefix of ['', '/v1']) {
      const models = await request(runtime.app).get(`${prefix}/models`).set(runtime.auth).expect(200);
      const byId = Object.fromEntries(models.body.data.map((model: { id: string }) => [model.id, model]));
      expect(byId.echo).toMatchObject({ name: 'Echo', object: 'model', pipeline: { type: 'pipe', valves: true } });
      expect(byId['async-echo'].pipeline).toEqual({ type: 'pipe', valves: false });
      expect(byId['many.one']).toMatchObject({ name: 'Many: One', pipeline: { type: 'manifold' } });
      expect(byId['many.two.b']).toMatchObject({ name: 'Many: two.b', pipeline: { type: 'manifold' } });
      expect(byId.many).toBeUndefined();
      expect(byId['passthrough-filter'].pipeline).toMatchObject({ type: 'filter', pipelines: ['*'], priority: 0 });
    }
  });

  it('manifold models() is cached: many /models calls, one models() call', async () => {
    const before = g.modelsCalls as number;
    for (let i = 0; i < 5; i += 1) await request(runtime.app).get('/models').set(runtime.auth).expect(200);
    await post('/chat/completions', chat('many.one', { stream: false })).expect(200);
    expect(g.modelsCalls).toBe(before);
  });

  it('a string reply, non-stream: one chat.completion; pipe valves work like filter valves', async () => {
    const response = await post('/v1/chat/completions', chat('echo', { stream: false })).expect(200);
    expect(response.body).toMatchObject({
      object: 'chat.completion',
      model: 'echo',
      choices: [{ index: 0, message: { role: 'assistant', content: 'echo: last question' }, finish_reason: 'stop' }],
    });
    await request(runtime.app).post('/echo/valves/update').set(runtime.auth).send({ prefix: '>> ' }).expect(200);
    expect((await request(runtime.app).get('/echo/valves').set(runtime.auth).expect(200)).body).toEqual({
      prefix: '>> ',
    });
    const after = await post('/chat/completions', chat('echo', { stream: false })).expect(200);
    expect(after.body.choices[0].message.content).toBe('>> last question');
  });

  it('stream defaults to true: content chunk, finish chunk, [DONE]', async () => {
    const response = await post('/chat/completions', chat('async-echo')).expect(200);
    expect(response.headers['content-type']).toMatch(/^text\/event-stream/);
    const events = sseData(response.text);
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((data) => JSON.parse(data));
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk' && chunk.model === 'async-echo')).toBe(
      true,
    );
    expect(chunks.at(-1).choices[0]).toMatchObject({ delta: {}, finish_reason: 'stop' });
    expect(JSON.parse(sseContent(response.text))).toEqual({
      userMessage: 'last question',
      modelId: 'async-echo',
      model: 'async-echo',
      stream: true,
      user: null,
    });
  });

  it('generators (async and sync): text, chunk objects, raw data: lines and bytes, in order', async () => {
    const streamed = await post('/chat/completions', chat('generator', { stream: true })).expect(200);
    expect(sseContent(streamed.text)).toBe('abcd');
    expect(sseData(streamed.text).filter((data) => data === '[DONE]')).toHaveLength(1);
    const whole = await post('/chat/completions', chat('generator', { stream: false })).expect(200);
    expect(whole.body.choices[0].message.content).toBe('abcd');
    const sync = await post('/chat/completions', chat('sync-generator', { stream: false })).expect(200);
    expect(sync.body.choices[0].message.content).toBe('xy');
  });

  it('a returned chat.completion is sent as is (non-stream) or as chunks (stream)', async () => {
    const whole = await post('/chat/completions', chat('whole', { stream: false })).expect(200);
    expect(whole.body).toMatchObject({ id: 'up-1', usage: { total_tokens: 5 } });
    const streamed = await post('/chat/completions', chat('whole')).expect(200);
    expect(sseContent(streamed.text)).toBe('whole answer');
    const last = JSON.parse(sseData(streamed.text).at(-2)!);
    expect(last).toMatchObject({ choices: [{ finish_reason: 'stop' }], usage: { total_tokens: 5 } });
  });

  it('manifold children get their child id; unknown models and filters are 404', async () => {
    const response = await post('/chat/completions', chat('many.two.b', { stream: false })).expect(200);
    expect(response.body.choices[0].message.content).toBe('child two.b');
    expect((await post('/chat/completions', chat('many.three')).expect(404)).body.detail).toBe(
      'Pipeline many.three not found',
    );
    await post('/chat/completions', chat('passthrough-filter')).expect(404);
    await post('/chat/completions', chat('nope')).expect(404);
  });

  it('bad input is a 400 naming the problem; the key is required', async () => {
    await post('/chat/completions', { model: 'echo' }).expect(400);
    const badMessage = await post('/chat/completions', { model: 'echo', messages: [{ content: 'x' }] }).expect(400);
    expect(badMessage.body.detail).toMatch(/messages\[0\]/);
    await request(runtime.app).post('/chat/completions').send(chat('echo')).expect(401);
  });

  it('an error before the first byte is a JSON error with its status (stream or not)', async () => {
    const early = await post('/chat/completions', chat('fails-early')).expect(429);
    expect(early.headers['content-type']).toMatch(/^application\/json/);
    expect(early.body.detail).toBe('slow down');
    const sync = await post('/chat/completions', chat('fails-sync', { stream: false })).expect(500);
    expect(sync.body.detail).toBe('no upstream configured');
  });

  it('an error after the first byte is an SSE error event, then the end', async () => {
    const response = await post('/chat/completions', chat('fails-late')).expect(200);
    const events = sseData(response.text);
    expect(JSON.parse(events[0]!).choices[0].delta.content).toBe('partial');
    const last = JSON.parse(events.at(-1)!);
    expect(last).toMatchObject({ choices: [], error: { message: 'upstream broke', code: 500 } });
    expect(events).not.toContain('[DONE]');
  });

  it('open WebUI calls a pipe model its own inlet/outlet: the body passes unchanged', async () => {
    const body = { model: 'many.one', messages: [{ role: 'user', content: 'hi' }] };
    await request(runtime.app)
      .post('/many.one/filter/inlet')
      .set(runtime.auth)
      .send({ body, user: null })
      .expect(200, body);
    await request(runtime.app)
      .post('/echo/filter/outlet')
      .set(runtime.auth)
      .send({ body, user: null })
      .expect(200, body);
  });

  it('over real HTTP the first chunk reaches the client while the pipe still waits', async () => {
    const gate = globalLatch('gate');
    let doneAtFirstChunk: unknown = 'unset';
    const response = await postStream(`${server.url}/chat/completions`, chat('gated'), runtime.auth, (text) => {
      if (doneAtFirstChunk === 'unset' && text.includes('first')) {
        doneAtFirstChunk = g.gatedDone;
        gate.resolve(undefined); // only now may the pipe go on: without streaming this would never happen
      }
    });
    expect(doneAtFirstChunk).toBe(false);
    expect(sseContent(response.text)).toBe('firstsecond');
    expect(g.gatedDone).toBe(true);
  });

  it('a client disconnect aborts the pipe signal', async () => {
    const aborted = globalLatch<string>('aborted');
    await postStream(`${server.url}/v1/chat/completions`, chat('abortable'), runtime.auth, (text) =>
      text.includes('first'),
    );
    expect(await aborted.promise).toBe('client closed the connection');
  });
});
