import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it, vi } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';

/**
 * The spend-limit filter's soft modes over HTTP (the shipped spend-limit and accounting filters, called as Open WebUI
 * calls them): past a cap's soft threshold, `slow` lets a user send `slow_requests_per_minute` requests a minute and
 * `cheaper` moves the request to the cheaper model of `cheaper_models`; the hard cap still refuses.
 *
 * Prices (the bundled OpenRouter snapshot, pricing/openrouter-snapshot.json): openai/gpt-4o $2.50 / $10 per M prompt /
 * completion tokens; openai/gpt-4o-mini $0.15 / $0.60.
 */

const redisUrl = inject('redisUrl');

/** 10 s into a UTC minute (the window slides: where the minute starts does not matter). */
const START = Date.parse('2026-12-05T10:00:10Z');

const alice = { id: 'alice', email: 'alice@example.com', name: 'Alice', role: 'user' };

function chat(model: string, messageId: string, chatId = 'c1') {
  return {
    model,
    max_tokens: 20,
    messages: [{ role: 'user', content: 'What is the plan?' }],
    metadata: { chat_id: chatId, message_id: messageId, task: null },
  };
}

/** Open WebUI's outlet body of one reply (v0.10+), with the provider's usage (and cost, when given). */
function reply(model: string, messageId: string, usage: Record<string, number>, chatId = 'c1') {
  return {
    model,
    chat_id: chatId,
    id: messageId,
    messages: [
      { id: 'u1', role: 'user', content: 'What is the plan?' },
      { id: messageId, role: 'assistant', content: 'The plan has three steps.', usage },
    ],
  };
}

describe('soft modes past the soft threshold (SQLite)', () => {
  let runtime: TestRuntime;
  let seq = 0;

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(START);
    runtime = await createTestRuntime({ filters: ['spend-limit.ts', 'accounting.ts'] });
  });
  afterAll(async () => {
    await runtime?.dispose();
    vi.useRealTimers();
  });
  beforeEach(() => vi.setSystemTime(START + seq++ * 86_400_000)); // each test on its own day: a fresh daily cap

  const valves = (values: Record<string, unknown>) =>
    request(runtime.app)
      .post('/spend-limit/valves/update')
      .set(runtime.auth)
      .send({ daily_limit_usd: 0.1, warn_fraction: 0.8, ...values })
      .expect(200);
  /** The user's spend of the day: one recorded reply with the provider's cost. */
  const spend = (user: typeof alice, cost: number, messageId: string) =>
    request(runtime.app)
      .post('/accounting/filter/outlet')
      .set(runtime.auth)
      .send({
        body: reply('openai/gpt-4o', messageId, {
          prompt_tokens: 1000,
          completion_tokens: 100,
          total_tokens: 1100,
          cost,
        }),
        user,
      })
      .expect(200);
  const inlet = (body: Record<string, unknown>, user: Record<string, unknown> = alice) =>
    request(runtime.app).post('/spend-limit/filter/inlet').set(runtime.auth).send({ body, user });

  it('slow: past 80 % of the daily cap, 2 requests in any 60 s pass, the next is a 429 that says the true wait', async () => {
    await valves({ soft_mode: 'slow', slow_requests_per_minute: 2 });
    await spend(alice, 0.085, `seed-slow-${seq}`);
    const t0 = Date.now();
    const first = await request(runtime.app)
      .post('/integrations/open-webui/inlet')
      .set(runtime.auth)
      .send({ body: chat('openai/gpt-4o', 's1'), user: alice })
      .expect(200);
    expect(first.body.events.map((event: { data: { description: string } }) => event.data.description)).toEqual([
      'slowed down: 2 requests a minute (daily budget 85 % used)',
      'spend: $0.0852 of $0.10 daily cap (85 %)',
    ]);
    vi.setSystemTime(t0 + 20_000);
    expect((await inlet(chat('openai/gpt-4o', 's2'))).status).toBe(200);
    // Through the Function's route, whose errors carry their code (the Pipelines route answers {detail}).
    // 45 s after the first: it leaves the window in 15 s.
    vi.setSystemTime(t0 + 45_000);
    const third = await request(runtime.app)
      .post('/integrations/open-webui/inlet')
      .set(runtime.auth)
      .send({ body: chat('openai/gpt-4o', 's3'), user: alice });
    expect(third.status).toBe(429);
    expect(third.body.code).toBe('ERR_RATE_LIMIT');
    expect(third.body.detail).toBe(
      'Your daily budget is 85 % used: requests are slowed to 2 per minute until it resets or spend falls under 80 %. Try again in 15 s.',
    );
    // A user under the threshold is not slowed.
    const bob = { ...alice, id: 'bob', email: 'bob@example.com' };
    for (let index = 0; index < 4; index++)
      expect((await inlet(chat('openai/gpt-4o', `b${index}`), bob)).status).toBe(200);
    // 60 s after the first it has left the window: one more passes; the next waits for the second (20 s).
    vi.setSystemTime(t0 + 60_000);
    expect((await inlet(chat('openai/gpt-4o', 's4'))).status).toBe(200);
    const fifth = await inlet(chat('openai/gpt-4o', 's5'));
    expect(fifth.status).toBe(429);
    expect(fifth.body.detail).toMatch(/ Try again in 20 s\.$/);
    // The refused requests held nothing, the admitted ones did (without their replies): 85 % + 3 small holds.
    vi.setSystemTime(t0 + 80_000);
    expect((await inlet(chat('openai/gpt-4o', 's6'))).status).toBe(200);
    // The period resets (the next UTC day): no longer slowed.
    vi.setSystemTime(Date.now() + 86_400_000);
    for (let index = 0; index < 3; index++)
      expect((await inlet(chat('openai/gpt-4o', `next-day-${index}`))).status).toBe(200);
  });

  it('slow: the hard cap still refuses with its own 429', async () => {
    await valves({ soft_mode: 'slow', slow_requests_per_minute: 5 });
    await spend(alice, 0.1, `seed-hard-${seq}`);
    const refused = await inlet(chat('openai/gpt-4o', 'h1'));
    expect(refused.status).toBe(429);
    expect(refused.body.detail).toMatch(/^Your daily budget of \$0\.10 is used up; it resets/);
  });

  it('cheaper, through the Function: the model is switched, the status line says so, the ledger records both ids', async () => {
    await valves({
      soft_mode: { daily: 'cheaper' },
      cheaper_models: { 'openai/gpt-4o': 'openai/gpt-4o-mini' },
    });
    await spend(alice, 0.085, `seed-cheap-${seq}`);
    const answer = await request(runtime.app)
      .post('/integrations/open-webui/inlet')
      .set(runtime.auth)
      .send({ body: chat('openai/gpt-4o', 'cheap-1'), user: alice })
      .expect(200);
    expect(answer.body.body.model).toBe('openai/gpt-4o-mini');
    const lines = answer.body.events.map((event: { data: { description: string } }) => event.data.description);
    expect(lines).toContain('cheaper model: openai/gpt-4o-mini instead of openai/gpt-4o (daily budget 85 % used)');
    // Open WebUI's outlet names the chat's model (the requested one); the provider reports tokens, no cost.
    await request(runtime.app)
      .post('/integrations/open-webui/outlet')
      .set(runtime.auth)
      .send({
        body: reply('openai/gpt-4o', 'cheap-1', { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 }),
        user: alice,
      })
      .expect(200);
    const records = await runtime.services.ledger!.list({ userId: 'alice', from: Date.now() - 60_000 });
    const record = records.find((each) => each.messageId === 'cheap-1');
    expect(record).toMatchObject({ model: 'openai/gpt-4o-mini', requestedModel: 'openai/gpt-4o' });
    // Priced as the model that answered: 1000 × $0.15/M + 100 × $0.60/M = $0.00021.
    expect(Number(record!.cost)).toBeCloseTo(0.00021, 10);
  });

  it('cheaper, over Pipelines: the inlet answers the body with the cheaper model', async () => {
    await valves({ soft_mode: 'cheaper', cheaper_models: { 'openai/gpt-4o': 'openai/gpt-4o-mini' } });
    await spend(alice, 0.09, `seed-cheap-p-${seq}`);
    const answer = await inlet(chat('openai/gpt-4o', 'cheap-p1'));
    expect(answer.status).toBe(200);
    expect(answer.body.model).toBe('openai/gpt-4o-mini');
    // Under the threshold nothing changes.
    const bob = { ...alice, id: 'bob', email: 'bob@example.com' };
    expect((await inlet(chat('openai/gpt-4o', 'cheap-p2'), bob)).body.model).toBe('openai/gpt-4o');
  });

  it('cheaper: a model not on the list, or a cheaper model on another connection, stays as asked', async () => {
    await valves({
      soft_mode: 'cheaper',
      cheaper_models: { 'openai/gpt-4o': 'anthropic/claude-3-haiku' },
    });
    await spend(alice, 0.085, `seed-cheap-x-${seq}`);
    expect((await inlet(chat('openai/gpt-4o', 'x1'))).body.model).toBe('openai/gpt-4o');
    expect((await inlet(chat('openai/gpt-4o-mini', 'x2'))).body.model).toBe('openai/gpt-4o-mini');
  });

  it("cheaper: the cheaper model's own budget holds the switched request; used up, the request goes on as asked", async () => {
    await valves({
      soft_mode: 'cheaper',
      cheaper_models: { 'openai/gpt-4o': 'openai/gpt-4o-mini' },
      model_limits: { 'openai/gpt-4o-mini': { daily_usd: 0.05 } },
    });
    // Bob's replies on gpt-4o-mini use up its $0.05 budget for everyone (recorded toward it: m:openai/gpt-4o-mini).
    const bob = { ...alice, id: 'bob', email: 'bob@example.com' };
    await request(runtime.app)
      .post('/accounting/filter/outlet')
      .set(runtime.auth)
      .send({
        body: reply('openai/gpt-4o-mini', `seed-mini-${seq}`, {
          prompt_tokens: 1000,
          completion_tokens: 100,
          total_tokens: 1100,
          cost: 0.05,
        }),
        user: bob,
      })
      .expect(200);
    // Alice is past 80 % of her own $0.10: her request would move to gpt-4o-mini, whose budget has no room.
    await spend(alice, 0.09, `seed-mini-a-${seq}`);
    const asked = await inlet(chat('openai/gpt-4o', 'mini-1'));
    expect(asked.status).toBe(200);
    expect(asked.body.model).toBe('openai/gpt-4o');
    // Asked for directly, gpt-4o-mini is refused by its budget.
    const direct = await inlet(chat('openai/gpt-4o-mini', 'mini-2'));
    expect(direct.status).toBe(429);
    expect(direct.body.detail).toMatch(/openai\/gpt-4o-mini/);
  });

  it('cheaper: a request the cap has no room for at the asked price passes at the cheaper one; a used-up cap refuses', async () => {
    await valves({ soft_mode: 'cheaper', cheaper_models: { 'openai/gpt-4o': 'openai/gpt-4o-mini' } });
    // $0.0998 of $0.10 spent: gpt-4o's estimate (~$0.0002 + 20 completion tokens) does not fit, gpt-4o-mini's does.
    await spend(alice, 0.0998, `seed-room-${seq}`);
    const saved = await inlet({ ...chat('openai/gpt-4o', 'r1'), max_tokens: 10 });
    expect(saved.status).toBe(200);
    expect(saved.body.model).toBe('openai/gpt-4o-mini');
    await spend(alice, 0.0002, `seed-room2-${seq}`);
    const refused = await inlet(chat('openai/gpt-4o', 'r2'));
    expect(refused.status).toBe(429);
    expect(refused.body.detail).toMatch(/^Your daily budget of \$0\.10 is used up; it resets/);
  });
});

describe.runIf(redisUrl)('soft modes across two replicas on one Redis', () => {
  const replicas: TestRuntime[] = [];

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(START);
    const env = { REDIS_URL: redisUrl, REDIS_PREFIX: `eunoe-soft-${randomBytes(4).toString('hex')}:` };
    for (let index = 0; index < 2; index++)
      replicas.push(await createTestRuntime({ filters: ['spend-limit.ts', 'accounting.ts'], env }));
  });
  afterAll(async () => {
    for (const replica of replicas) await replica.dispose();
    vi.useRealTimers();
  });

  const on = (replica: TestRuntime, hook: 'inlet' | 'outlet', body: Record<string, unknown>, user = alice) =>
    request(replica.app).post(`/integrations/open-webui/${hook}`).set(replica.auth).send({ body, user });

  /** Sets the valves on the first replica and waits until the second has them (the store's change channel). */
  async function valves(values: Record<string, unknown>) {
    const [first, second] = replicas;
    await request(first!.app)
      .post('/spend-limit/valves/update')
      .set(first!.auth)
      .send({ daily_limit_usd: 0.1, warn_fraction: 0.8, ...values })
      .expect(200);
    await vi.waitFor(
      async () => {
        const answer = await request(second!.app).get('/spend-limit/valves').set(second!.auth);
        expect(answer.body.soft_mode).toEqual(values.soft_mode);
      },
      { timeout: 10_000, interval: 100 },
    );
  }

  it('slow: 2 a minute between both replicas; cheaper: switched on one, recorded with both ids by the other', async () => {
    const [first, second] = replicas as [TestRuntime, TestRuntime];
    await valves({ soft_mode: 'slow', slow_requests_per_minute: 2 });
    const usage = { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 };
    await on(first, 'outlet', reply('openai/gpt-4o', 'redis-seed', { ...usage, cost: 0.085 })).expect(200);
    const answers = [];
    for (let index = 0; index < 4; index++)
      answers.push((await on(index % 2 ? second : first, 'inlet', chat('openai/gpt-4o', `rs-${index}`))).status);
    expect(answers).toEqual([200, 200, 429, 429]);

    await valves({ soft_mode: 'cheaper', cheaper_models: { 'openai/gpt-4o': 'openai/gpt-4o-mini' } });
    const switched = await on(first, 'inlet', chat('openai/gpt-4o', 'redis-cheap')).expect(200);
    expect(switched.body.body.model).toBe('openai/gpt-4o-mini');
    await on(second, 'outlet', reply('openai/gpt-4o', 'redis-cheap', usage)).expect(200);
    const records = await second.services.ledger!.list({ userId: 'alice', from: START - 60_000 });
    expect(records.find((each) => each.messageId === 'redis-cheap')).toMatchObject({
      model: 'openai/gpt-4o-mini',
      requestedModel: 'openai/gpt-4o',
      cost: expect.stringMatching(/^0\.00021/),
    });
  });
});
