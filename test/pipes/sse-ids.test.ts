import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { pipeSource } from './helpers/pipe-source.js';
import { listen, postStream, sseData } from './helpers/sse.js';

const sources: Record<string, string> = {
  'words.ts': pipeSource(`export default definePipe({
  async *pipe() { yield 'one '; yield 'two '; yield 'three'; },
});`),
  'text.ts': pipeSource(`export default definePipe({ pipe: () => 'a whole answer' });`),
  'relay.ts': pipeSource(`export default definePipe({
  async *pipe() {
    yield 'data: {"id":"up-7","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"up"},"finish_reason":null}]}';
    yield 'data: {"id":"up-7","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}';
  },
});`),
  'tail.ts': pipeSource(`export default defineFilter({
  outlet: ({ body }) => ({
    ...body,
    messages: body.messages.map((message, index) =>
      index === body.messages.length - 1 ? { ...message, content: message.content + ' (tail)' } : message),
  }),
});`),
};

/** The SSE chunks of one completion share one `id`, as OpenAI's do; relayed upstream chunks keep the upstream's. */
describe('SSE chunk ids', () => {
  let runtime: TestRuntime;
  let server: Awaited<ReturnType<typeof listen>>;
  beforeAll(async () => {
    runtime = await createTestRuntime({ sources });
    server = await listen(runtime.app);
  });
  afterAll(async () => {
    await server.close();
    await runtime.dispose();
  });
  const stream = async (model: string) => {
    const { status, text } = await postStream(
      `${server.url}/chat/completions`,
      { model, stream: true, messages: [{ role: 'user', content: 'hi' }] },
      runtime.auth,
      () => false,
    );
    expect(status).toBe(200);
    const chunks = sseData(text)
      .filter((data) => data !== '[DONE]')
      .map((data) => JSON.parse(data) as { id: string; choices: Array<{ delta: { content?: string } }> });
    return chunks;
  };

  it.each(['words', 'text'])(
    '%s: every chunk, the finish chunk and an outlet’s addition carry one id',
    async (model) => {
      const chunks = await stream(model);
      expect(chunks.length).toBeGreaterThanOrEqual(3); // content, the tail filter's addition, finish
      expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toMatch(/ \(tail\)$/);
      const ids = new Set(chunks.map((chunk) => chunk.id));
      expect(ids.size).toBe(1);
      expect([...ids][0]).toMatch(new RegExp(`^${model}-[0-9a-f-]{36}$`));
      // Another completion has another id.
      expect((await stream(model))[0]!.id).not.toBe([...ids][0]);
    },
  );

  it('a relayed stream keeps the upstream’s id, the outlet’s addition included', async () => {
    const chunks = await stream('relay');
    expect(new Set(chunks.map((chunk) => chunk.id))).toEqual(new Set(['up-7']));
  });

  it('stream: false answers one completion with that id', async () => {
    const whole = await request(runtime.app)
      .post('/chat/completions')
      .set(runtime.auth)
      .send({ model: 'words', stream: false, messages: [{ role: 'user', content: 'hi' }] })
      .expect(200);
    expect(whole.body.id).toMatch(/^words-[0-9a-f-]{36}$/);
    expect(whole.body.choices[0].message.content).toBe('one two three (tail)');
  });
});
