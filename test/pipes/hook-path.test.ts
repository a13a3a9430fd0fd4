import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePrometheusText, sampleValue, type Sample } from '../metrics/prometheus-text.js';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { startFakeOpenAI } from './helpers/fake-openai.js';
import { pipeSource } from './helpers/pipe-source.js';
import { sseData } from './helpers/sse.js';

/**
 * The Pipelines filter routes, the Open WebUI Function's chain route and the filter chain around a pipe run a hook
 * the same way (runtime/host/hook-call.ts): each reports the turn's `!flags` as a status line, and each hook run is
 * timed in the hook metrics.
 */
const MODEL = 'openai-proxy.gpt-4o-mini';
const user = { id: 'u-hook-path', email: 'h@example.com', name: 'H', role: 'user' };

function chat(question: string): Array<Record<string, unknown>> {
  return [
    { role: 'user', content: 'Where do the tomatoes go?' },
    { role: 'assistant', content: 'In the sunny bed by the wall.' },
    { role: 'user', content: question },
  ];
}

/** The descriptions of the `{"event": …}` status chunks of an SSE body, in order. */
function statusLines(text: string): string[] {
  const lines: string[] = [];
  for (const data of sseData(text)) {
    if (data === '[DONE]') continue;
    const event = (JSON.parse(data) as { event?: { type: string; data: { description?: string } } }).event;
    if (event?.type === 'status' && event.data.description) lines.push(event.data.description);
  }
  return lines;
}

/** A pipe with an inlet of its own that tells, in the reply, the `recent` flag and the last message it was given. */
const flagPipe = pipeSource(`export default definePipe({
  name: 'Flag pipe',
  inlet: ({ body, flags }) => ({
    ...body,
    messages: [...body.messages, { role: 'user', content: 'recent=' + String(flags.get('recent')) }],
  }),
  pipe: ({ messages }) => messages.slice(-2).map((message) => message.content).join(' | '),
});`);

describe('one hook path for the Pipelines routes, the Function chain and pipes', () => {
  let runtime: TestRuntime;
  let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
    runtime = await createTestRuntime({
      filters: ['openai-proxy.ts', 'context.ts'],
      sources: { 'flag-pipe.ts': flagPipe },
      env: { FILTER_ISOLATION: 'off' },
    });
    // The context filter targets the proxy's models only: the flag pipe's own inlet is the only hook before it.
    await request(runtime.app)
      .post('/context/valves/update')
      .set(runtime.auth)
      .send({ pipelines: [MODEL] })
      .expect(200);
    await request(runtime.app)
      .post('/openai-proxy/valves/update')
      .set(runtime.auth)
      .send({ base_url: fake.url, api_key: 'sk-upstream' })
      .expect(200);
  });
  afterAll(async () => {
    await runtime.dispose();
    await fake.close();
  });

  const scrape = async (): Promise<Sample[]> => {
    const response = await request(runtime.app).get('/metrics').set(runtime.auth).expect(200);
    return parsePrometheusText(response.text).samples;
  };

  it("a Pipelines inlet reports the turn's flags: the status line reaches the stream of the pipe model", async () => {
    const inlet = await request(runtime.app)
      .post('/context/filter/inlet')
      .set(runtime.auth)
      .send({ user, body: { model: MODEL, messages: chat('!+recent=4 Which bed for the beans?') } })
      .expect(200);
    // The flag block is stripped on the inlet: the model sees the question alone.
    expect(inlet.body.messages.at(-1).content).toBe('Which bed for the beans?');
    const reply = await request(runtime.app)
      .post('/chat/completions')
      .set(runtime.auth)
      .send({ model: MODEL, stream: true, user, messages: inlet.body.messages })
      .expect(200);
    expect(statusLines(reply.text)).toContainEqual(expect.stringMatching(/^⚑ Eunoe flags: \+recent=4/));
  });

  it('a rejected flag value is reported by a Pipelines inlet as a warning status line', async () => {
    const other = { ...user, id: 'u-hook-path-2' };
    const inlet = await request(runtime.app)
      .post('/context/filter/inlet')
      .set(runtime.auth)
      .send({ user: other, body: { model: MODEL, messages: chat('!recent=lots Which bed for the peas?') } })
      .expect(200);
    const reply = await request(runtime.app)
      .post('/chat/completions')
      .set(runtime.auth)
      .send({ model: MODEL, stream: true, user: other, messages: inlet.body.messages })
      .expect(200);
    expect(statusLines(reply.text)).toContainEqual(expect.stringMatching(/^⚠ .*recent/));
  });

  it('the hooks of the Function chain and of a pipe chain are timed in the hook metrics, as the Pipelines ones', async () => {
    const before = await scrape();
    await request(runtime.app)
      .post('/integrations/open-webui/inlet')
      .set(runtime.auth)
      .send({ user, body: { model: MODEL, messages: chat('And the carrots?') } })
      .expect(200);
    await request(runtime.app)
      .post('/v1/chat/completions')
      .set(runtime.auth)
      .send({ model: MODEL, stream: false, user: 'u-direct', messages: chat('And the onions?') })
      .expect(200);
    await request(runtime.app)
      .post('/context/filter/inlet')
      .set(runtime.auth)
      .send({ user, body: { model: MODEL, messages: chat('And the leeks?') } })
      .expect(200);
    const after = await scrape();
    const delta = (labels: Record<string, string>) =>
      sampleValue(after, 'eunoe_hook_duration_seconds_count', labels) -
      sampleValue(before, 'eunoe_hook_duration_seconds_count', labels);
    expect(delta({ filter: 'context', hook: 'inlet' })).toBe(3);
  });

  it("a pipe's own inlet gets the turn's flags and a stripped body, through the Pipelines route and a pipe chain alike", async () => {
    const inlet = await request(runtime.app)
      .post('/flag-pipe/filter/inlet')
      .set(runtime.auth)
      .send({ user, body: { model: 'flag-pipe', messages: chat('!recent=3 Which bed for the kale?') } })
      .expect(200);
    expect(inlet.body.messages.slice(-2).map((message: { content: string }) => message.content)).toEqual([
      'Which bed for the kale?',
      'recent=3',
    ]);
    const direct = await request(runtime.app)
      .post('/v1/chat/completions')
      .set(runtime.auth)
      .send({ model: 'flag-pipe', stream: false, user: 'u-pipe', messages: chat('!recent=3 Which bed for the kale?') })
      .expect(200);
    expect(direct.body.choices[0].message.content).toBe('Which bed for the kale? | recent=3');
  });
});
