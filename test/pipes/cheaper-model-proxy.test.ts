import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { waitFor } from '../helpers/wait-for.js';
import { startFakeOpenAI } from './helpers/fake-openai.js';
import { priorSpendOutlet } from '../helpers/server-calls.js';

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
      cheaper_models: {
        'openai-proxy.gpt-4o': 'openai-proxy.gpt-4o-mini',
        'openai-proxy.gpt-4-turbo': 'openai-proxy.gpt-4o-mini',
      },
    });
  });
  afterAll(async () => {
    await runtime.dispose();
    await fake.close();
  });

  /** The user's ledger records, oldest first, as the store keeps them. */
  const ledgerOf = async (userId: string) =>
    (await runtime.services.ledger!.list({ userId, from: Date.now() - 3_600_000 })).sort((a, b) => a.time - b.time);
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
        body: priorSpendOutlet('seed', 0.0009),
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
    // The proxy's record keeps the model asked for beside the one that answered, priced as the one that answered:
    // the fake upstream's usage (12 prompt tokens of which 2 cached, 5 completion) at gpt-4o-mini's snapshot prices
    // ($0.15 / M prompt, $0.075 / M cache read, $0.60 / M completion; docs/accounting.md "How cost is decided", 2.):
    // 10 × 0.00000015 + 2 × 0.000000075 + 5 × 0.0000006 = $0.00000465 (as gpt-4o it would be $0.0000775).
    const proxied = (await ledgerOf('u-proxy')).find((record) => record.model === 'openai-proxy.gpt-4o-mini');
    expect(proxied).toMatchObject({
      requestedModel: 'openai-proxy.gpt-4o',
      costSource: 'computed',
      cost: '0.00000465',
    });
  });

  it("each switch is claimed once: the user's own later request for the cheaper model has no requestedModel", async () => {
    const user = { id: 'u-proxy', name: 'P', email: 'p@example.com', role: 'user' };
    const messages = [{ role: 'user', content: 'Say hello again' }];
    await request(runtime.app)
      .post('/v1/chat/completions')
      .set(runtime.auth)
      .send({ model: 'openai-proxy.gpt-4o-mini', messages, user, stream: false })
      .expect(200);
    const own = await waitFor(() => ledgerOf('u-proxy'), { until: (list) => list.length === 3 });
    const latest = own.filter((record) => record.model === 'openai-proxy.gpt-4o-mini').at(-1)!;
    expect(latest.requestedModel).toBeUndefined();
    expect(latest.cost).toBe('0.00000465');
  });

  it("a request that names its message (metadata.message_id) claims that message's switch, streamed too", async () => {
    const user = { id: 'u-proxy', name: 'P', email: 'p@example.com', role: 'user' };
    const switchTo = async (model: string, messageId: string, content: string) => {
      const body = {
        model,
        max_tokens: 20,
        messages: [{ role: 'user', content }],
        metadata: { chat_id: 'c1', message_id: messageId },
      };
      const inlet = await request(runtime.app)
        .post('/spend-limit/filter/inlet')
        .set(runtime.auth)
        .send({ user, body })
        .expect(200);
      expect(inlet.body.model).toBe('openai-proxy.gpt-4o-mini');
      return { ...body, model: inlet.body.model as string };
    };
    // Two switches to gpt-4o-mini wait: a-4 (from gpt-4o), then a-5 (from gpt-4-turbo).
    const fromGpt4o = await switchTo('openai-proxy.gpt-4o', 'a-4', 'First question');
    const fromTurbo = await switchTo('openai-proxy.gpt-4-turbo', 'a-5', 'Second question');
    // a-5's request names its message: it gets a-5's switch, not the older a-4.
    await request(runtime.app)
      .post('/v1/chat/completions')
      .set(runtime.auth)
      .send({ ...fromTurbo, user, stream: true, stream_options: { include_usage: true } })
      .expect(200);
    let list = await waitFor(() => ledgerOf('u-proxy'), { until: (found) => found.length === 4 });
    expect(list.at(-1)).toMatchObject({
      model: 'openai-proxy.gpt-4o-mini',
      requestedModel: 'openai-proxy.gpt-4-turbo',
      cost: '0.00000465',
    });
    // a-4's request, as Open WebUI sends it (metadata dropped): the oldest unclaimed switch, a-4's.
    const { metadata: _dropped, ...asOpenWebUISends } = fromGpt4o;
    await request(runtime.app)
      .post('/v1/chat/completions')
      .set(runtime.auth)
      .send({ ...asOpenWebUISends, user, stream: false })
      .expect(200);
    list = await waitFor(() => ledgerOf('u-proxy'), { until: (found) => found.length === 5 });
    expect(list.at(-1)).toMatchObject({ requestedModel: 'openai-proxy.gpt-4o', cost: '0.00000465' });
  });
});
