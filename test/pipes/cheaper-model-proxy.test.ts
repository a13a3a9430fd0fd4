import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { waitFor } from '../helpers/wait-for.js';
import { startFakeOpenAI } from './helpers/fake-openai.js';

/**
 * The `cheaper` soft mode with Eunoe's own openai-proxy manifold (a loopback OpenAI upstream), on Open WebUI's path:
 * the inlet switches `openai-proxy.gpt-4o` to `openai-proxy.gpt-4o-mini`, Open WebUI calls the pipe with the switched
 * body, the proxy records the reply, and the outlet (which names the requested model) must not record it again.
 * Prices: the bundled snapshot (gpt-4o $2.50 / $10, gpt-4o-mini $0.15 / $0.60 per M tokens).
 */
describe('a cheaper model through the openai-proxy', () => {
  let runtime: TestRuntime;
  let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
    runtime = await createTestRuntime({ filters: ['openai-proxy.ts', 'accounting.ts', 'spend-limit.ts'] });
    const update = (id: string, values: Record<string, unknown>) =>
      request(runtime.app).post(`/${id}/valves/update`).set(runtime.auth).send(values).expect(200);
    await update('openai-proxy', { base_url: fake.url, api_key: 'sk-upstream' });
    await update('spend-limit', {
      daily_limit_usd: 0.001,
      soft_mode: 'cheaper',
      cheaper_models: { 'openai-proxy.gpt-4o': 'openai-proxy.gpt-4o-mini' },
    });
  });
  afterAll(async () => {
    await runtime.dispose();
    await fake.close();
  });

  const records = async (userId: string) =>
    (await request(runtime.app).get(`/usage?user=${userId}`).set(runtime.auth).expect(200)).body.records as Array<{
      model: string;
      messageId: string;
    }>;

  it('switched where gpt-4o no longer fits; the reply is recorded once, as the model that answered', async () => {
    const user = { id: 'u-proxy', name: 'P', email: 'p@example.com', role: 'user' };
    // $0.0009 of the $0.001 daily cap spent.
    await request(runtime.app)
      .post('/accounting/filter/outlet')
      .set(runtime.auth)
      .send({
        user,
        body: {
          model: 'openai/gpt-4o',
          id: 'seed',
          messages: [
            { role: 'user', content: 'hi' },
            {
              id: 'seed',
              role: 'assistant',
              content: 'Hello.',
              usage: { prompt_tokens: 10, completion_tokens: 5, cost: 0.0009 },
            },
          ],
        },
      })
      .expect(200);
    const messages = [{ role: 'user', content: 'Say hello' }];
    const inlet = await request(runtime.app)
      .post('/spend-limit/filter/inlet')
      .set(runtime.auth)
      .send({
        user,
        body: {
          model: 'openai-proxy.gpt-4o',
          max_tokens: 20,
          messages,
          metadata: { chat_id: 'c1', message_id: 'a-1' },
        },
      })
      .expect(200);
    expect(inlet.body.model).toBe('openai-proxy.gpt-4o-mini');
    // Open WebUI calls the pipe with the body the inlets answered.
    const reply = await request(runtime.app)
      .post('/v1/chat/completions')
      .set(runtime.auth)
      .send({ model: inlet.body.model, messages, user, stream: false })
      .expect(200);
    expect(fake.calls.at(-1)!.body.model).toBe('gpt-4o-mini');
    await waitFor(() => records('u-proxy'), { until: (list) => list.length === 2 });
    // Open WebUI's outlet names the chat's model, the one asked for.
    await request(runtime.app)
      .post('/accounting/filter/outlet')
      .set(runtime.auth)
      .send({
        user,
        body: {
          model: 'openai-proxy.gpt-4o',
          chat_id: 'c1',
          id: 'a-1',
          messages: [...messages, { id: 'a-1', role: 'assistant', content: reply.body.choices[0].message.content }],
        },
      })
      .expect(200);
    const list = await records('u-proxy');
    expect(list).toHaveLength(2);
    expect(list.map((record) => record.model).sort()).toEqual(['openai-proxy.gpt-4o-mini', 'openai/gpt-4o']);
  });
});
