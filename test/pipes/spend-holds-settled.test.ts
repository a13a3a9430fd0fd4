import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestRuntime } from '../helpers/create-test-runtime.js';
import { waitFor } from '../helpers/wait-for.js';
import { proxyMoneyRuntime, type ProxyMoneyRuntime } from './helpers/proxy-money-runtime.js';

/**
 * Which reply settles which spend hold, on the two real paths through the openai-proxy manifold (a loopback
 * OpenAI upstream): Open WebUI's (inlet with metadata.message_id, the pipe call, the outlet with body.id) and a
 * direct caller's (Eunoe's own filter chain and the proxy's record in one request).
 */
describe('spend holds are settled by the recorded reply', () => {
  let runtime: TestRuntime;
  let setup: ProxyMoneyRuntime;
  beforeAll(async () => {
    setup = await proxyMoneyRuntime();
    ({ runtime } = setup);
    const { update } = setup;
    // gpt-4o-mini ($0.15 / $0.60 per M tokens): "Say hello" with the 1,000-token default completion is
    // estimated at ~$0.0006; a $0.001 cap has room for one such request in flight, not two.
    await update('spend-limit', { monthly_limit_usd: 0.001 });
  });
  afterAll(async () => setup?.close());

  /** The user's live holds in USD (a probe holding nothing, expired at once). */
  const held = async (userId: string) => {
    const now = Date.now();
    const outcome = await runtime.services.spend!.reserve({
      userId,
      id: 'probe',
      amount: '0',
      caps: [],
      now,
      expiresAt: now + 1,
    });
    await runtime.services.spend!.release(userId, ['probe']);
    return outcome.held;
  };
  const records = async (userId: string) =>
    (await request(runtime.app).get(`/usage?user=${userId}`).set(runtime.auth).expect(200)).body.records as unknown[];

  it("Open WebUI's path: the hold keyed by metadata.message_id is released by the outlet with that body.id", async () => {
    const user = { id: 'u-owui', name: 'O', email: 'o@example.com', role: 'user' };
    const messages = [{ role: 'user', content: 'Say hello' }];
    const model = 'openai-proxy.gpt-4o-mini';
    const inlet = (messageId: string) =>
      request(runtime.app)
        .post('/spend-limit/filter/inlet')
        .set(runtime.auth)
        .send({ user, body: { model, messages, metadata: { chat_id: 'c1', message_id: messageId } } });
    await inlet('assistant-1').expect(200);
    expect(Number(await held('u-owui'))).toBeGreaterThan(0.0005);
    // A second request while the first is in flight does not fit under the cap.
    expect((await inlet('assistant-2').expect(429)).body.detail).toMatch(/left, less than this request's estimated/);
    // The pipe call (Open WebUI sends no metadata to a pipe): the proxy records the reply with its own id.
    const reply = await request(runtime.app)
      .post('/v1/chat/completions')
      .set(runtime.auth)
      .send({ model, messages, user, stream: false })
      .expect(200);
    await waitFor(() => records('u-owui'), { until: (list) => list.length === 1 });
    // The outlet (body.id = the assistant message id): the proxy already recorded it; the hold is released.
    const content = reply.body.choices[0].message.content as string;
    await request(runtime.app)
      .post('/accounting/filter/outlet')
      .set(runtime.auth)
      .send({
        user,
        body: {
          model,
          chat_id: 'c1',
          id: 'assistant-1',
          messages: [...messages, { id: 'assistant-1', role: 'assistant', content }],
        },
      })
      .expect(200);
    expect(await held('u-owui')).toBe('0');
    expect(await records('u-owui')).toHaveLength(1);
    await inlet('assistant-3').expect(200);
  });

  it("a direct caller's path: the hold keyed by the request is released once the reply is recorded", async () => {
    const chat = () =>
      request(runtime.app)
        .post('/v1/chat/completions')
        .set(runtime.auth)
        .send({ model: 'openai-proxy.gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello' }], user: 'u-api' });
    await chat().expect(200);
    // The chain's accounting outlet and the proxy's record (after [DONE]) both release the request's hold.
    await waitFor(() => held('u-api'), { until: (value) => value === '0' });
    expect(await records('u-api')).toHaveLength(1);
    // Held twice (never released), $0.0012 would not fit under $0.001: the second call passes.
    await chat().expect(200);
  });
});
