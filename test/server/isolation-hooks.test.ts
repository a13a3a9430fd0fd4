import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, SDK_SPECIFIER, type TestRuntime } from '../helpers/create-test-runtime.js';
import { filterSource } from './helpers/filter-source.js';

/** Uses everything an isolated filter can reach across the worker boundary. */
const worker =
  `import { provided, contextStatsService } from ${JSON.stringify(SDK_SPECIFIER)};\n` +
  filterSource(`export default defineFilter({
  name: 'Isolated',
  valves: baseValves.extend({ mode: z.enum(['plain', 'loud']).default('plain'), level: z.number().int().min(0).default(1) }),
  userValves: z.object({ nickname: z.string().default('anon') }),
  flags: [{ key: 'shout', kind: 'boolean', description: 'shout' }],
  async inlet({ body, valves, userValves, state, flags, services, logger, hook, filterId, deadline }) {
    if (body.reject) throw new FilterError(429, 'slow down');
    if (body.subscribe) state.subscribe('x', () => undefined);
    logger.info({ hook }, 'isolated inlet');
    const calls = ((await state.get('calls')) ?? 0) + 1;
    await state.set('calls', calls);
    await state.scope('nested:').set('k', 'v');
    await state.delete('gone');
    return {
      ...body,
      seen: {
        calls,
        nested: await state.scope('nested:').get('k'),
        gone: (await state.get('gone')) ?? null,
        mode: valves.mode,
        nickname: userValves.nickname,
        shout: flags.has('shout'),
        contextLength: services.pricing.contextLength('openai/gpt-4o'),
        spent: await services.ledger.spent('u1', 0, Date.now()),
        provided: await (async () => {
          const stats = provided(services, contextStatsService);
          const day = (offset) => new Date(Date.now() + offset).toISOString().slice(0, 10);
          await stats.record({ tokensBefore: 7, tokensAfter: 5, kept: 1, summarized: 0, dropped: 1, summarizerCalls: 0, cacheHits: 0 });
          return (await stats.daily(day(0), day(86_400_000)))[0].tokensBefore;
        })(),
        lease: await (async () => {
          const held = await state.acquireLease('job', 5000);
          const again = await state.acquireLease('job', 5000);
          await held.release();
          const after = await state.acquireLease('job', 5000);
          await after.release();
          return { held: held.name, token: typeof held.token, again: again ?? null, after: Boolean(after) };
        })(),
        filterId,
        deadline: typeof deadline,
        thread: (await import('node:worker_threads')).isMainThread ? 'main' : 'worker',
      },
    };
  },
});`);

function inlet(
  runtime: TestRuntime,
  id: string,
  body: Record<string, unknown>,
  user: Record<string, unknown> = { id: 'u1' },
) {
  return request(runtime.app)
    .post(`/${id}/filter/inlet`)
    .set(runtime.auth)
    .send({ body: { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], ...body }, user });
}

describe('an isolated filter (FILTER_ISOLATION=auto, a filter not shipped with Eunoe)', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime({ sources: { 'iso.ts': worker }, env: { FILTER_ISOLATION: 'auto' } });
    await runtime.store.set('f:iso:gone', 'soon');
  });
  afterAll(async () => runtime.dispose());

  it('runs in a worker with state, valves, user valves, flags and services', async () => {
    await request(runtime.app).post('/iso/valves/update').set(runtime.auth).send({ mode: 'loud' }).expect(200);
    await request(runtime.app)
      .post('/iso/valves/user/update?user_id=u1')
      .set(runtime.auth)
      .send({ nickname: 'Ada' })
      .expect(200);
    const first = await inlet(runtime, 'iso', { messages: [{ role: 'user', content: '!shout hello' }] }).expect(200);
    expect(first.body.seen).toEqual({
      calls: 1,
      nested: 'v',
      gone: null,
      mode: 'loud',
      nickname: 'Ada',
      shout: true,
      contextLength: expect.any(Number),
      spent: expect.stringMatching(/^\d/),
      // A service the context feature provides, reached by its key across the worker boundary.
      provided: 7,
      // A lease is held on the host under the filter's namespace: taken once, refused while held, free when released.
      lease: { held: expect.stringMatching(/job$/), token: 'string', again: null, after: true },
      filterId: 'iso',
      deadline: 'number',
      thread: 'worker',
    });
    expect(first.body.messages[0].content).toBe('hello');
    const second = await inlet(runtime, 'iso', {}).expect(200);
    expect(second.body.seen).toMatchObject({ calls: 2, shout: false });
    // The state lives in the host's store, under the filter's namespace.
    expect(await runtime.store.get('f:iso:calls')).toBe(2);
    expect(await runtime.store.get('f:iso:nested:k')).toBe('v');
    const lease = await runtime.store.acquireLease('f:iso:job', 1000);
    expect(lease).toBeDefined();
    await lease?.release();
  });

  it('is listed with its isolation; its valves are validated on the host', async () => {
    const list = await request(runtime.app).get('/pipelines').set(runtime.auth).expect(200);
    expect(list.body.data.find((entry: { id: string }) => entry.id === 'iso')).toMatchObject({
      status: 'loaded',
      isolation: 'worker',
      user_valves: true,
    });
    await request(runtime.app).post('/iso/valves/update').set(runtime.auth).send({ mode: 'quiet' }).expect(400);
    await request(runtime.app).post('/iso/valves/update').set(runtime.auth).send({ level: -1 }).expect(400);
    const spec = await request(runtime.app).get('/iso/valves/spec').set(runtime.auth).expect(200);
    expect(spec.body.properties.mode).toMatchObject({ enum: ['plain', 'loud'], default: 'plain' });
  });

  it('a FilterError keeps its status; what cannot cross the boundary fails with a clear message', async () => {
    const rejected = await inlet(runtime, 'iso', { reject: true });
    expect(rejected.status).toBe(429);
    expect(rejected.body.detail).toBe('slow down');
    const unsupported = await inlet(runtime, 'iso', { subscribe: true });
    expect(unsupported.status).toBe(500);
    expect(unsupported.body.detail).toMatch(/state.subscribe is not available to isolated filters/);
  });
});

describe('shipped filters are recognised by content', () => {
  let runtime: TestRuntime;
  afterAll(async () => runtime?.dispose());

  it('a shipped filter runs in the main thread; an edited copy and FILTER_ISOLATION=worker run it isolated', async () => {
    runtime = await createTestRuntime({
      filters: ['turn-limit.ts', 'system-prefix.ts'],
      env: { FILTER_ISOLATION: 'auto' },
    });
    const edited = path.join(runtime.filtersDir, 'system-prefix.ts');
    writeFileSync(edited, `${readFileSync(edited, 'utf8')}\n// edited\n`);
    runtime = await runtime.restart();
    const isolation = async () => {
      const list = await request(runtime.app).get('/pipelines').set(runtime.auth).expect(200);
      return Object.fromEntries(
        list.body.data.map((entry: { id: string; isolation: string }) => [entry.id, entry.isolation]),
      );
    };
    expect(await isolation()).toEqual({ 'turn-limit': 'main', 'system-prefix': 'worker' });
    await runtime.close();
    runtime = await createTestRuntime({ root: runtime.root, env: { FILTER_ISOLATION: 'worker' } });
    expect(await isolation()).toEqual({ 'turn-limit': 'worker', 'system-prefix': 'worker' });
    await request(runtime.app)
      .post('/turn-limit/valves/update')
      .set(runtime.auth)
      .send({ pipelines: ['*'], max_turns: 1 })
      .expect(200);
    const body = {
      model: 'm',
      messages: [
        { role: 'user', content: 'a' },
        { role: 'assistant', content: 'b' },
        { role: 'user', content: 'c' },
      ],
    };
    const limited = await request(runtime.app)
      .post('/turn-limit/filter/inlet')
      .set(runtime.auth)
      .send({ body, user: { id: 'u', role: 'user' } });
    expect(limited.status).toBe(429);
    expect(limited.body.detail).toMatch(/turn limit exceeded/);
    await runtime.close();
    runtime = await createTestRuntime({
      root: runtime.root,
      env: { FILTER_ISOLATION: 'off', FILTER_ISOLATION_OVERRIDES: 'turn-limit=worker' },
    });
    expect(await isolation()).toEqual({ 'turn-limit': 'worker', 'system-prefix': 'main' });
  });
});

describe('the shipped context filter (FILTER_ISOLATION=auto)', () => {
  let runtime: TestRuntime;
  afterAll(async () => runtime?.dispose());

  it('runs small chats in the main thread and large ones in a worker with the memory of a shipped filter', async () => {
    // 16 MB (the least FILTER_WORKER_MAX_MB takes) is less than a worker holds once the context filter is loaded.
    runtime = await createTestRuntime({
      filters: ['context.ts', 'system-prefix.ts'],
      env: { FILTER_ISOLATION: 'auto', FILTER_WORKER_MAX_MB: '16' },
    });
    const list = await request(runtime.app).get('/pipelines').set(runtime.auth).expect(200);
    expect(
      Object.fromEntries(list.body.data.map((entry: { id: string; isolation: string }) => [entry.id, entry.isolation])),
    ).toEqual({ context: 'main', 'system-prefix': 'main' });
    await request(runtime.app).post('/context/valves/update').set(runtime.auth).send({ max_tokens: 500 }).expect(200);
    const chat = (count: number) => [
      ...Array.from({ length: count }, (_, index) => ({
        role: index % 2 === 0 ? 'user' : 'assistant',
        content: `turn ${index}: the quarterly report lists revenue, costs and the hiring plan.`,
      })),
      { role: 'user', content: 'what did the report say about hiring?' },
    ];
    // 40 messages in the main thread; 5,200 (past 5,000) in the worker, started on the first, then reused.
    for (const messages of [chat(40), chat(5_200), chat(5_200), chat(40)]) {
      const answer = await request(runtime.app)
        .post('/context/filter/inlet')
        .set(runtime.auth)
        .send({ body: { model: 'gpt-4o', messages, metadata: { chat_id: 'iso-context' } }, user: { id: 'u1' } });
      expect(answer.status).toBe(200);
      expect(answer.body.messages.length).toBeLessThan(messages.length);
      expect(answer.body.messages.at(-1).content).toBe('what did the report say about hiring?');
    }
  });
});

describe('a filter not shipped with Eunoe placed in the main thread (FILTER_ISOLATION_OVERRIDES=stem=main)', () => {
  let runtime: TestRuntime;
  afterAll(async () => runtime?.dispose());

  it('is imported in a worker first: an import-time loop fails it there, a good file then runs in the main thread', async () => {
    // The loop burns the whole import time limit, so it gets a short one in a runtime of its own;
    // the good file keeps the suite's generous limit (a liveness bound on a busy machine).
    const spinning = await createTestRuntime({
      sources: {
        'spin.ts': filterSource(`while (true) {}\nexport default defineFilter({ inlet: ({ body }) => body });`),
      },
      env: { FILTER_ISOLATION: 'auto', FILTER_ISOLATION_OVERRIDES: 'spin=main', FILTER_LOAD_TIMEOUT_MS: '1000' },
    });
    const spun = await request(spinning.app).get('/pipelines').set(spinning.auth).expect(200);
    await spinning.dispose();
    expect(spun.body.data).toEqual([
      expect.objectContaining({
        id: 'spin',
        status: 'failed',
        error: expect.stringMatching(/did not finish within 1000 ms/),
      }),
    ]);
    runtime = await createTestRuntime({
      sources: {
        'fine.ts': filterSource(
          `export default defineFilter({ inlet: async ({ body }) => ({ ...body, thread: (await import('node:worker_threads')).isMainThread ? 'main' : 'worker' }) });`,
        ),
      },
      env: { FILTER_ISOLATION: 'auto', FILTER_ISOLATION_OVERRIDES: 'fine=main' },
    });
    const list = await request(runtime.app).get('/pipelines').set(runtime.auth).expect(200);
    expect(list.body.data).toEqual([expect.objectContaining({ id: 'fine', status: 'loaded', isolation: 'main' })]);
    const answer = await inlet(runtime, 'fine', {}).expect(200);
    expect(answer.body.thread).toBe('main');
  });
});
