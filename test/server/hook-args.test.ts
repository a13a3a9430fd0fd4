import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { openWebUiUser } from '../fixtures/openwebui-bodies.js';
import { filterSource } from './helpers/filter-source.js';

/** Reports what its hook received; counts calls in its state store. */
const inspector = (name: string) =>
  filterSource(`export default defineFilter({
  name: ${JSON.stringify(name)},
  valves: baseValves.extend({ level: z.number().int().default(3) }),
  userValves: z.object({ nickname: z.string().default('anon') }),
  async inlet({ body, user, valves, userValves, state, flags, requestId, filterId, hook, signal, logger, services }) {
    const previous = (await state.get('calls')) ?? 0;
    await state.set('calls', previous + 1);
    if (body.write) await state.set('shared-key', body.write);
    return {
      ...body,
      seen: {
        user,
        valves,
        userValves,
        calls: await state.get('calls'),
        sharedKey: (await state.get('shared-key')) ?? null,
        flags: { source: flags.source, has: typeof flags.has, get: typeof flags.get, chatKey: typeof flags.chatKey },
        requestId,
        filterId,
        hook,
        signal: signal instanceof AbortSignal && !signal.aborted,
        logger: typeof logger.info,
        services: typeof services,
      },
    };
  },
  async outlet({ body, state, hook, requestId }) {
    return { ...body, seen: { calls: await state.get('calls'), hook, requestId } };
  },
});`);

describe('what a hook receives', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    // In worker threads (where files not shipped with Eunoe run): every argument crosses the thread boundary.
    runtime = await createTestRuntime({
      sources: { 'alpha.ts': inspector('Alpha'), 'beta.ts': inspector('Beta') },
      env: { FILTER_ISOLATION: 'auto' },
    });
  });
  afterAll(async () => runtime.dispose());

  it('user, valves, userValves, flags, requestId, filterId, hook, signal, logger', async () => {
    const user = openWebUiUser();
    await request(runtime.app).post('/alpha/valves/update').set(runtime.auth).send({ level: '7' }).expect(200);
    await request(runtime.app)
      .post('/alpha/valves/user/update')
      .query({ user_id: user.id })
      .set(runtime.auth)
      .send({ nickname: 'Ada L.' })
      .expect(200);
    const response = await request(runtime.app)
      .post('/v1/alpha/filter/inlet')
      .set(runtime.auth)
      .set('X-Request-Id', 'req-42.abc')
      .send({
        body: { model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }], metadata: { chat_id: 'c1' } },
        user,
      })
      .expect(200);
    expect(response.headers['x-request-id']).toBe('req-42.abc');
    expect(response.body.seen).toMatchObject({
      user,
      valves: { pipelines: ['*'], priority: 0, level: 7 },
      userValves: { nickname: 'Ada L.' },
      flags: { has: 'function', get: 'function', chatKey: 'string' },
      requestId: 'req-42.abc',
      filterId: 'alpha',
      hook: 'inlet',
      signal: true,
      logger: 'function',
      services: 'object',
    });
    expect(typeof response.body.seen.flags.source).toBe('string');
    const outlet = await request(runtime.app)
      .post('/alpha/filter/outlet')
      .set(runtime.auth)
      .send({ body: { model: 'gpt-4o' }, user })
      .expect(200);
    expect(outlet.body.seen.hook).toBe('outlet');
  });

  it('a fresh requestId per request when none is sent', async () => {
    const ids = new Set<string>();
    for (let index = 0; index < 3; index++) {
      const response = await request(runtime.app)
        .post('/alpha/filter/outlet')
        .set(runtime.auth)
        .send({ body: {} })
        .expect(200);
      expect(response.body.seen.requestId).toBe(response.headers['x-request-id']);
      ids.add(response.body.seen.requestId);
    }
    expect(ids.size).toBe(3);
  });

  it('state is a store scoped to the filter: writes are read back, other filters do not see them', async () => {
    const first = await request(runtime.app)
      .post('/alpha/filter/inlet')
      .set(runtime.auth)
      .send({ body: { write: 'from-alpha' } })
      .expect(200);
    const second = await request(runtime.app)
      .post('/alpha/filter/inlet')
      .set(runtime.auth)
      .send({ body: {} })
      .expect(200);
    expect(second.body.seen.calls).toBe(first.body.seen.calls + 1);
    expect(second.body.seen.sharedKey).toBe('from-alpha');
    const beta = await request(runtime.app).post('/beta/filter/inlet').set(runtime.auth).send({ body: {} }).expect(200);
    expect(beta.body.seen.sharedKey).toBeNull();
    expect(beta.body.seen.calls).toBe(1);
  });

  it('state survives a restart', async () => {
    const before = await request(runtime.app)
      .post('/beta/filter/outlet')
      .set(runtime.auth)
      .send({ body: {} })
      .expect(200);
    expect(before.body.seen.calls).toBeGreaterThan(0);
    runtime = await runtime.restart();
    const after = await request(runtime.app)
      .post('/beta/filter/outlet')
      .set(runtime.auth)
      .send({ body: {} })
      .expect(200);
    expect(after.body.seen.calls).toBe(before.body.seen.calls);
  });
});
