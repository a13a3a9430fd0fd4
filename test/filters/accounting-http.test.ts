import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';

/**
 * The shipped accounting and spend-limit filters loaded by the real loader and called over
 * HTTP as Open WebUI calls them, with the host services the runtime wires (pricing, ledger,
 * corrections on the runtime's store).
 */
describe('accounting + spend-limit over HTTP', () => {
  let runtime: TestRuntime;
  const user = { id: 'u-http', email: 'h@example.com', name: 'H', role: 'user' };

  beforeAll(async () => {
    runtime = await createTestRuntime({ filters: ['accounting.ts', 'spend-limit.ts'] });
    // The runtime wires pricing (bundled snapshot, PRICING_FETCH=false), the ledger and corrections itself.
    expect(runtime.services.pricing && runtime.services.ledger && runtime.services.corrections).toBeTruthy();
    await request(runtime.app)
      .post('/accounting/valves/update')
      .set(runtime.auth)
      .send({ show_usage: true })
      .expect(200);
    await request(runtime.app)
      .post('/spend-limit/valves/update')
      .set(runtime.auth)
      .send({ daily_limit_usd: 0.01 })
      .expect(200);
  });
  afterAll(async () => {
    await runtime.dispose();
  });

  it('lists both filters with their priorities', async () => {
    const response = await request(runtime.app).get('/models').set(runtime.auth).expect(200);
    const byId = Object.fromEntries(
      response.body.data.map((model: { id: string; pipeline: { priority: number } }) => [
        model.id,
        model.pipeline.priority,
      ]),
    );
    expect(byId).toEqual({ accounting: 100, 'spend-limit': -50 });
  });

  it('records the reply, appends the usage line, then blocks the next request with a 429 detail', async () => {
    const body = {
      model: 'openai/gpt-4o',
      messages: [
        { id: 'u-1', role: 'user', content: 'Hi' },
        {
          id: 'a-1',
          role: 'assistant',
          content: 'Hello!',
          usage: { prompt_tokens: 1200, completion_tokens: 350, cost: 0.0123 },
        },
      ],
      chat_id: 'c-http',
      session_id: 's-http',
      id: 'a-1',
    };
    // max_tokens 100: the request is estimated at ~$0.001 and fits under the $0.01 cap (the default expected
    // completion, 1,000 tokens at $10 / M, would not).
    const inletBody = {
      model: 'openai/gpt-4o',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Hi' }],
      metadata: { chat_id: 'c-http', message_id: 'a-1' },
    };
    await request(runtime.app)
      .post('/spend-limit/filter/inlet')
      .set(runtime.auth)
      .send({ body: inletBody, user })
      .expect(200);
    const outlet = await request(runtime.app)
      .post('/accounting/filter/outlet')
      .set(runtime.auth)
      .send({ body, user })
      .expect(200);
    expect(outlet.body.messages[1].content).toBe('Hello!\n\n*1,200 in · 350 out · $0.0123*');
    expect(outlet.body).toMatchObject({ chat_id: 'c-http', session_id: 's-http', id: 'a-1' });
    const blocked = await request(runtime.app)
      .post('/v1/spend-limit/filter/inlet')
      .set(runtime.auth)
      .send({ body: inletBody, user })
      .expect(429);
    expect(blocked.body.detail).toBe('Your daily budget of $0.01 is used up; it resets at 00:00 UTC.');
    const task = { ...inletBody, metadata: { chat_id: 'c-http', task: 'title_generation' } };
    await request(runtime.app)
      .post('/spend-limit/filter/inlet')
      .set(runtime.auth)
      .send({ body: task, user })
      .expect(200);
  });
});
