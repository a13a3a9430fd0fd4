import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { startFakeOpenAI } from './helpers/fake-openai.js';
import { sseContent, sseData } from './helpers/sse.js';

const user = { id: 'u-status', email: 's@example.com', name: 'S', role: 'user' };
const MODEL = 'openai-proxy.gpt-4o-mini';

/** A chat long enough for the context filter to leave messages out under a 400-token budget. */
function history(question: string): Array<Record<string, unknown>> {
  const messages: Array<Record<string, unknown>> = [];
  for (let turn = 0; turn < 12; turn++) {
    messages.push({ role: 'user', content: `Question ${turn}: ${'about the garden and its plants '.repeat(6)}` });
    messages.push({ role: 'assistant', content: `Answer ${turn}: ${'the plants need water and light '.repeat(6)}` });
  }
  messages.push({ role: 'user', content: question });
  return messages;
}

/** The `{"event": …}` chunks of an SSE body, in order, and whether each came before the first content chunk. */
function eventChunks(text: string): Array<{ event: Record<string, unknown>; beforeContent: boolean }> {
  let content = false;
  const found: Array<{ event: Record<string, unknown>; beforeContent: boolean }> = [];
  for (const data of sseData(text)) {
    if (data === '[DONE]') continue;
    const json = JSON.parse(data) as Record<string, unknown>;
    if (json.event) found.push({ event: json.event as Record<string, unknown>, beforeContent: !content });
    const choices = json.choices as Array<{ delta?: { content?: string } }> | undefined;
    if (choices?.[0]?.delta?.content) content = true;
  }
  return found;
}

describe("status lines in the stream of Eunoe's own models", () => {
  let runtime: TestRuntime;
  let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
    runtime = await createTestRuntime({ filters: ['openai-proxy.ts', 'context.ts'] });
    await request(runtime.app)
      .post('/openai-proxy/valves/update')
      .set(runtime.auth)
      .send({ base_url: fake.url, api_key: 'sk-upstream' })
      .expect(200);
    await request(runtime.app).post('/context/valves/update').set(runtime.auth).send({ max_tokens: 400 }).expect(200);
  });
  afterAll(async () => {
    await runtime.dispose();
    await fake.close();
  });

  /** Open WebUI's turn: the context filter's Pipelines inlet, then the pipe call with the inlet's messages and `user` object. */
  async function openWebuiTurn(question: string, headers: Record<string, string> = {}) {
    const inlet = await request(runtime.app)
      .post('/context/filter/inlet')
      .set(runtime.auth)
      .send({ user, body: { model: MODEL, messages: history(question), metadata: { chat_id: 'c-status' } } })
      .expect(200);
    return request(runtime.app)
      .post('/chat/completions')
      .set(runtime.auth)
      .set(headers)
      .send({ model: MODEL, stream: true, user, messages: inlet.body.messages })
      .expect(200);
  }

  it("sends the context decision of Open WebUI's inlet as an event chunk before the first content chunk", async () => {
    const response = await openWebuiTurn('What do the plants need?');
    const events = eventChunks(response.text);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      beforeContent: true,
      event: {
        type: 'status',
        data: {
          done: true,
          description: expect.stringMatching(/^context: [\d,]+ → [\d,]+ tokens · \d+ of 25 messages left out$/),
        },
      },
    });
    expect(sseContent(response.text)).toBe('Hello from upstream');
    // Taken once: a retry of the same turn does not show it again.
    const again = await request(runtime.app)
      .post('/chat/completions')
      .set(runtime.auth)
      .send({ model: MODEL, stream: true, user, messages: history('What do the plants need?') })
      .expect(200);
    expect(eventChunks(again.text)).toEqual([]);
  });

  it('never sends event chunks to an OpenAI client (no user object), nor when Open WebUI asks for none', async () => {
    const plain = await request(runtime.app)
      .post('/v1/chat/completions')
      .set(runtime.auth)
      .send({ model: MODEL, stream: true, user: 'u-status', messages: history('And the soil?') })
      .expect(200);
    expect(eventChunks(plain.text)).toEqual([]);
    expect(sseContent(plain.text)).toBe('Hello from upstream');
    const off = await openWebuiTurn('And the light?', { 'X-Eunoe-Events': 'off' });
    expect(eventChunks(off.text)).toEqual([]);
  });

  it('sends the filter chain it runs itself when a direct caller asks for events', async () => {
    const response = await request(runtime.app)
      .post('/v1/chat/completions')
      .set(runtime.auth)
      .set('X-Eunoe-Events', 'on')
      .send({ model: MODEL, stream: true, user: 'u-direct', messages: history('How often to water?') })
      .expect(200);
    const events = eventChunks(response.text);
    expect(events.map((item) => (item.event.data as { description: string }).description)).toEqual([
      expect.stringMatching(/^context: /),
    ]);
    expect(events[0]!.beforeContent).toBe(true);
  });
});
