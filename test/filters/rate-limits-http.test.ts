import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { priorSpendOutlet } from '../helpers/server-calls.js';

/**
 * The spend-limit filter's request rate limits (`rate_limits`), independent of money, over HTTP: a sliding window of
 * 60 s kept by the state store's atomic `windowAdmit`, so two replicas on one Redis share it, and no 60 s ever holds
 * more than the limit, however the requests straddle a minute boundary (docs/accounting.md, "Rate limits").
 */

const redisUrl = inject('redisUrl');

/** 15 s into a UTC minute. Requests sent at one instant fill the window until 60 s later: "Try again in 60 s". */
const START = Date.parse('2026-12-05T10:00:15Z');

/** 10:02:59 and 10:03:01 of the test's day: two seconds apart, across a minute boundary. */
const AT_59 = Date.parse('2026-12-05T10:02:59Z');
const AT_01 = Date.parse('2026-12-05T10:03:01Z');

const LIMITS = {
  default: 5,
  roles: { user: 2 },
  groups: { Engineering: 4, 'g-ops': 3 },
  users: { 'vip@example.com': 0 },
};

const body = (messageId: string, task: string | null = null) => ({
  model: 'openai/gpt-4o',
  messages: [{ role: 'user', content: 'Hello' }],
  metadata: { chat_id: `chat-${messageId}`, message_id: messageId, task },
});

function inletOn(runtime: TestRuntime) {
  return (user: Record<string, unknown>, messageId: string, task: string | null = null) =>
    request(runtime.app)
      .post('/integrations/open-webui/inlet')
      .set(runtime.auth)
      .send({ body: body(messageId, task), user });
}

async function configure(runtime: TestRuntime) {
  await request(runtime.app)
    .post('/spend-limit/valves/update')
    .set(runtime.auth)
    .send({ rate_limits: LIMITS })
    .expect(200);
}

/** How many of `count` requests pass, spread over `inlets` in turn, and the first refusal. */
async function send(
  inlets: Array<ReturnType<typeof inletOn>>,
  user: Record<string, unknown>,
  count: number,
  prefix: string,
) {
  let passed = 0;
  let refusal: { status: number; code?: string; detail?: string } | undefined;
  for (let index = 0; index < count; index++) {
    const answer = await inlets[index % inlets.length]!(user, `${prefix}-${index}`);
    if (answer.status === 200) passed += 1;
    else refusal ??= { status: answer.status, code: answer.body.code, detail: answer.body.detail };
  }
  return { passed, refusal };
}

describe('rate limits (SQLite)', () => {
  let runtime: TestRuntime;
  let inlet: ReturnType<typeof inletOn>;

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(START);
    runtime = await createTestRuntime({ filters: ['spend-limit.ts'] });
    await configure(runtime);
    inlet = inletOn(runtime);
  });
  afterAll(async () => {
    await runtime?.dispose();
    vi.useRealTimers();
  });

  it("a role's limit: 2 a minute, the third is a 429 ERR_RATE_LIMIT that says why and when", async () => {
    const result = await send([inlet], { id: 'u-role', role: 'user' }, 4, 'role');
    expect(result.passed).toBe(2);
    expect(result.refusal).toEqual({
      status: 429,
      code: 'ERR_RATE_LIMIT',
      detail: 'Too many requests: at most 2 per minute for your role. Try again in 60 s.',
    });
  });

  it('a group (by name or id) over the role; the highest of several groups; a user over everything (0 = none)', async () => {
    const engineer = { id: 'u-eng', role: 'user', groups: [{ id: 'g-eng', name: 'Engineering' }] };
    expect((await send([inlet], engineer, 6, 'eng')).passed).toBe(4);
    const both = {
      id: 'u-both',
      role: 'user',
      groups: [
        { id: 'g-ops', name: 'Ops' },
        { id: 'g-eng', name: 'Engineering' },
      ],
    };
    const twice = await send([inlet], both, 6, 'both');
    expect(twice.passed).toBe(4);
    expect(twice.refusal?.detail).toBe(
      'Too many requests: at most 4 per minute for your group Engineering. Try again in 60 s.',
    );
    const ops = { id: 'u-ops', role: 'user', groups: [{ id: 'g-ops', name: 'Ops' }] };
    expect((await send([inlet], ops, 5, 'ops')).passed).toBe(3);
    const vip = { id: 'u-vip', email: 'vip@example.com', role: 'user', groups: [{ id: 'g-eng', name: 'Engineering' }] };
    expect((await send([inlet], vip, 12, 'vip')).passed).toBe(12);
    expect((await send([inlet], { id: 'u-default', role: 'pending' }, 7, 'def')).passed).toBe(5);
  });

  it('background tasks (titles, tags) are never limited, and do not use up the limit; admins are exempt', async () => {
    const user = { id: 'u-tasks', role: 'user' };
    for (let index = 0; index < 5; index++)
      expect((await inlet(user, `task-${index}`, 'title_generation')).status).toBe(200);
    expect((await send([inlet], user, 3, 'after-tasks')).passed).toBe(2);
    expect((await send([inlet], { id: 'u-admin', role: 'admin' }, 8, 'admin')).passed).toBe(8);
  });

  it("the valves as Open WebUI's form sends them (JSON typed as text), and a misspelt key refused by name", async () => {
    const form = {
      rate_limits: '{"default": 30, "roles": {"user": 20}, "groups": {"Engineering": 60}}',
      soft_mode: '{"daily": "slow", "monthly": "cheaper"}',
      cheaper_models: '{"openai/gpt-5": "openai/gpt-5-mini"}',
      slow_requests_per_minute: '3',
    };
    await request(runtime.app).post('/spend-limit/valves/update').set(runtime.auth).send(form).expect(200);
    const saved = (await request(runtime.app).get('/spend-limit/valves').set(runtime.auth).expect(200)).body;
    expect(saved).toMatchObject({
      rate_limits: { default: 30, roles: { user: 20 }, groups: { Engineering: 60 }, users: {} },
      soft_mode: { daily: 'slow', monthly: 'cheaper' },
      cheaper_models: { 'openai/gpt-5': 'openai/gpt-5-mini' },
      slow_requests_per_minute: 3,
    });
    await request(runtime.app)
      .post('/spend-limit/valves/update')
      .set(runtime.auth)
      .send({ soft_mode: 'slow' })
      .expect(200);
    expect((await request(runtime.app).get('/spend-limit/valves').set(runtime.auth)).body.soft_mode).toBe('slow');
    const misspelt = await request(runtime.app)
      .post('/spend-limit/valves/update')
      .set(runtime.auth)
      .send({ rate_limits: { defualt: 5 } });
    expect(misspelt.status).toBe(400);
    expect(JSON.stringify(misspelt.body)).toContain('defualt');
    await configure(runtime);
  });

  it('the window slides: 2 at 10:02:59 and 2 more at 10:03:01 are refused, with the true wait; 60 s on, 2 pass', async () => {
    const user = { id: 'u-minute', role: 'user' };
    vi.setSystemTime(AT_59);
    expect((await send([inlet], user, 2, 'm59')).passed).toBe(2);
    // A calendar-minute counter would start afresh at 10:03:00; the 60 s window still holds both.
    vi.setSystemTime(AT_01);
    const across = await send([inlet], user, 2, 'm01');
    expect(across.passed).toBe(0);
    // The two of 10:02:59 leave the window at 10:03:59, 58 s after 10:03:01.
    expect(across.refusal).toEqual({
      status: 429,
      code: 'ERR_RATE_LIMIT',
      detail: 'Too many requests: at most 2 per minute for your role. Try again in 58 s.',
    });
    vi.setSystemTime(AT_59 + 59_999);
    expect((await send([inlet], user, 1, 'm-just-before')).refusal?.detail).toMatch(/ Try again in 1 s\.$/);
    vi.setSystemTime(AT_59 + 60_000);
    expect((await send([inlet], user, 3, 'm-after')).passed).toBe(2);
  });
});

describe.runIf(redisUrl)('rate limits across two replicas on one Redis', () => {
  const replicas: TestRuntime[] = [];

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(START);
    const env = { REDIS_URL: redisUrl, REDIS_PREFIX: `eunoe-rate-${randomBytes(4).toString('hex')}:` };
    for (let index = 0; index < 2; index++)
      replicas.push(await createTestRuntime({ filters: ['spend-limit.ts'], env }));
    await configure(replicas[0]!);
  });
  afterAll(async () => {
    for (const replica of replicas) await replica.dispose();
    vi.useRealTimers();
  });

  it('the limit holds for requests spread over both: 4 of 8 pass for a group of 4 a minute', async () => {
    const inlets = replicas.map(inletOn);
    // The valves reached the second replica (the store's change channel).
    await vi.waitFor(
      async () => {
        const answer = await request(replicas[1]!.app).get('/spend-limit/valves').set(replicas[1]!.auth);
        expect(answer.body.rate_limits?.default).toBe(5);
      },
      { timeout: 10_000, interval: 100 },
    );
    const engineer = { id: 'r-eng', role: 'user', groups: [{ id: 'g-eng', name: 'Engineering' }] };
    const result = await send(inlets, engineer, 8, 'redis');
    expect(result.passed).toBe(4);
    expect(result.refusal?.code).toBe('ERR_RATE_LIMIT');
    const concurrent = await Promise.all(
      Array.from({ length: 10 }, (_, index) => inlets[index % 2]!({ id: 'r-burst', role: 'user' }, `burst-${index}`)),
    );
    expect(concurrent.filter((answer) => answer.status === 200)).toHaveLength(2);
  });

  it('the window slides across replicas: 10:02:59 on one and the other, 10:03:01 on both refused with the true wait', async () => {
    const inlets = replicas.map(inletOn);
    const user = { id: 'r-boundary', role: 'user' };
    vi.setSystemTime(AT_59);
    expect((await send(inlets, user, 2, 'rb59')).passed).toBe(2);
    vi.setSystemTime(AT_01);
    const across = await send(inlets, user, 2, 'rb01');
    expect(across.passed).toBe(0);
    expect(across.refusal?.detail).toBe('Too many requests: at most 2 per minute for your role. Try again in 58 s.');
    vi.setSystemTime(AT_59 + 60_000);
    // 60 s after 10:02:59, ten at once over both replicas: the window holds 2 again, no more.
    const later = await Promise.all(
      Array.from({ length: 10 }, async (_, index) => (await inlets[index % 2]!(user, `rb-later-${index}`)).status),
    );
    expect(later.filter((status) => status === 200)).toHaveLength(2);
  });
});

describe('rate limits and a cheaper model with the spend-limit filter in a worker thread', () => {
  let runtime: TestRuntime;

  beforeAll(async () => {
    runtime = await createTestRuntime({
      filters: ['spend-limit.ts', 'accounting.ts'],
      env: { FILTER_ISOLATION: 'worker' },
    });
    await request(runtime.app)
      .post('/spend-limit/valves/update')
      .set(runtime.auth)
      .send({
        rate_limits: { roles: { user: 2 } },
        daily_limit_usd: 0.1,
        soft_mode: 'cheaper',
        cheaper_models: { 'openai/gpt-4o': 'openai/gpt-4o-mini' },
      })
      .expect(200);
  });
  afterAll(async () => runtime?.dispose());

  it('counts through the worker (the real clock) and switches the model', async () => {
    const inlet = inletOn(runtime);
    const result = await send([inlet], { id: 'w-user', role: 'user' }, 3, 'w');
    expect(result.passed).toBe(2);
    expect(result.refusal?.detail).toMatch(
      /^Too many requests: at most 2 per minute for your role\. Try again in \d+ s\.$/,
    );
    const user = { id: 'w-cheap', role: 'admin-like', email: 'w@example.com' };
    await request(runtime.app)
      .post('/accounting/filter/outlet')
      .set(runtime.auth)
      .send({
        user,
        body: priorSpendOutlet('w-seed', 0.09),
      })
      .expect(200);
    const switched = await inlet(user, 'w-cheap-1').expect(200);
    expect(switched.body.body.model).toBe('openai/gpt-4o-mini');
  });
});
