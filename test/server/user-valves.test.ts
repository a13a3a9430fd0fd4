import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { filterSource, noopFilter } from './helpers/filter-source.js';
import { expectJsonError, PREFIXES } from './helpers/http.js';

const personal = filterSource(`export default defineFilter({
  name: 'Personal',
  valves: baseValves.extend({ greeting: z.string().default('Hello') }),
  userValves: z.object({
    prefix: z.string().default('').describe('Your own prefix'),
    max_turns: z.number().int().min(1).nullable().default(null),
    enabled: z.boolean().default(true),
    languages: z.array(z.string()).default(['en']),
  }),
  inlet: ({ body, userValves, valves }) => ({ ...body, userValves, greeting: valves.greeting }),
  outlet: ({ body, userValves }) => ({ ...body, userValves }),
});`);

const USER_DEFAULTS = { prefix: '', max_turns: null, enabled: true, languages: ['en'] };

describe('per-user valves', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime({ sources: { 'personal.ts': personal, 'plain.ts': noopFilter() } });
  });
  afterAll(async () => runtime.dispose());
  const inlet = (user: Record<string, unknown> | null, hook = 'inlet') =>
    request(runtime.app)
      .post(`/personal/filter/${hook}`)
      .set(runtime.auth)
      .send({ body: { model: 'gpt-4o', messages: [] }, user })
      .expect(200);

  it('the user spec is a schema titled "UserValves" with titles, types, defaults', async () => {
    const { body: spec } = await request(runtime.app)
      .get('/v1/personal/valves/user/spec')
      .set(runtime.auth)
      .expect(200);
    expect(spec).toMatchObject({ title: 'UserValves', type: 'object' });
    expect(Object.keys(spec.properties)).toEqual(['prefix', 'max_turns', 'enabled', 'languages']);
    expect(spec.properties.prefix).toMatchObject({
      title: 'Prefix',
      type: 'string',
      default: '',
      description: 'Your own prefix',
    });
    expect(spec.properties.max_turns.anyOf).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: 'integer' }), { type: 'null' }]),
    );
    expect(spec.properties.languages).toMatchObject({ type: 'array', items: { type: 'string' } });
    // Admin valves do not leak into the user spec and vice versa.
    expect(spec.properties.greeting).toBeUndefined();
    const admin = await request(runtime.app).get('/personal/valves/spec').set(runtime.auth).expect(200);
    expect(admin.body.properties.prefix).toBeUndefined();
  });

  it.each(PREFIXES)(
    'GET/POST per user_id, coerced like the admin form, isolated between users (prefix "%s")',
    async (prefix) => {
      const user = `user-${prefix || 'root'}`;
      const before = await request(runtime.app)
        .get(`${prefix}/personal/valves/user`)
        .query({ user_id: user })
        .set(runtime.auth)
        .expect(200);
      expect(before.body).toStrictEqual(USER_DEFAULTS);
      const updated = await request(runtime.app)
        .post(`${prefix}/personal/valves/user/update`)
        .query({ user_id: user })
        .set(runtime.auth)
        .send({ prefix: 'Answer in French.', max_turns: '3', enabled: 'false', languages: 'fr, de' })
        .expect(200);
      const saved = { prefix: 'Answer in French.', max_turns: 3, enabled: false, languages: ['fr', 'de'] };
      expect(updated.body).toStrictEqual(saved);
      expect(
        (
          await request(runtime.app)
            .get(`${prefix}/personal/valves/user`)
            .query({ user_id: user })
            .set(runtime.auth)
            .expect(200)
        ).body,
      ).toStrictEqual(saved);
      expect(
        (
          await request(runtime.app)
            .get(`${prefix}/personal/valves/user`)
            .query({ user_id: `${user}-other` })
            .set(runtime.auth)
            .expect(200)
        ).body,
      ).toStrictEqual(USER_DEFAULTS);
      // Admin valves are untouched.
      expect((await request(runtime.app).get(`${prefix}/personal/valves`).set(runtime.auth)).body.greeting).toBe(
        'Hello',
      );
    },
  );

  it('invalid user values → 400 with field errors; missing user_id → 400; no user valves → 404', async () => {
    const bad = await request(runtime.app)
      .post('/personal/valves/user/update')
      .query({ user_id: 'u-bad' })
      .set(runtime.auth)
      .send({ max_turns: '0', enabled: 'perhaps' });
    expectJsonError(bad, 400);
    expect(bad.body.errors.map((entry: { path: string }) => entry.path).sort()).toEqual(['enabled', 'max_turns']);
    expect(
      (await request(runtime.app).get('/personal/valves/user').query({ user_id: 'u-bad' }).set(runtime.auth)).body,
    ).toStrictEqual(USER_DEFAULTS);

    expectJsonError(await request(runtime.app).get('/personal/valves/user').set(runtime.auth), 400, /user_id/);
    expectJsonError(
      await request(runtime.app).get('/personal/valves/user').query({ user_id: '  ' }).set(runtime.auth),
      400,
      /user_id/,
    );
    expectJsonError(
      await request(runtime.app).post('/personal/valves/user/update').set(runtime.auth).send({ prefix: 'x' }),
      400,
      /user_id/,
    );

    expectJsonError(await request(runtime.app).get('/plain/valves/user/spec').set(runtime.auth), 404);
    expectJsonError(
      await request(runtime.app).get('/plain/valves/user').query({ user_id: 'a' }).set(runtime.auth),
      404,
    );
    expectJsonError(
      await request(runtime.app).post('/plain/valves/user/update').query({ user_id: 'a' }).set(runtime.auth).send({}),
      404,
    );
  });

  it("the hook gets the user's saved values merged over the defaults (keyed by user.id)", async () => {
    await request(runtime.app)
      .post('/personal/valves/user/update')
      .query({ user_id: 'carol' })
      .set(runtime.auth)
      .send({ prefix: 'Hi Carol' })
      .expect(200);
    const carol = await inlet({ id: 'carol', email: 'c@example.org', name: 'Carol', role: 'user' });
    expect(carol.body.userValves).toStrictEqual({ ...USER_DEFAULTS, prefix: 'Hi Carol' });
    const carolOutlet = await inlet({ id: 'carol', role: 'user' }, 'outlet');
    expect(carolOutlet.body.userValves).toStrictEqual({ ...USER_DEFAULTS, prefix: 'Hi Carol' });
    const dave = await inlet({ id: 'dave', role: 'user' });
    expect(dave.body.userValves).toStrictEqual(USER_DEFAULTS);
    const anonymous = await inlet(null);
    expect(anonymous.body.userValves).toStrictEqual(USER_DEFAULTS);
  });

  it('user.valves in the envelope overrides the saved values for that request only (coerced)', async () => {
    await request(runtime.app)
      .post('/personal/valves/user/update')
      .query({ user_id: 'erin' })
      .set(runtime.auth)
      .send({ prefix: 'saved', max_turns: 4 })
      .expect(200);
    const inline = await inlet({ id: 'erin', role: 'user', valves: { prefix: 'inline', enabled: 'false' } });
    expect(inline.body.userValves).toStrictEqual({ ...USER_DEFAULTS, prefix: 'inline', max_turns: 4, enabled: false });
    const next = await inlet({ id: 'erin', role: 'user' });
    expect(next.body.userValves).toStrictEqual({ ...USER_DEFAULTS, prefix: 'saved', max_turns: 4 });
    expect(
      (await request(runtime.app).get('/personal/valves/user').query({ user_id: 'erin' }).set(runtime.auth)).body,
    ).toStrictEqual({ ...USER_DEFAULTS, prefix: 'saved', max_turns: 4 });
  });

  it("the shipped turn-limit filter honours a user's lower limit", async () => {
    const other = await createTestRuntime({ filters: ['turn-limit.ts'] });
    try {
      const messages = [1, 2, 3].flatMap((turn) => [
        { role: 'user', content: `q${turn}` },
        { role: 'assistant', content: `a${turn}` },
      ]);
      const send = (userId: string) =>
        request(other.app)
          .post('/turn-limit/filter/inlet')
          .set(other.auth)
          .send({ body: { model: 'gpt-4o', messages }, user: { id: userId, role: 'user' } });
      await request(other.app)
        .post('/turn-limit/valves/update')
        .set(other.auth)
        .send({ pipelines: ['gpt-4o'] })
        .expect(200);
      expect((await send('frank')).status).toBe(200);
      await request(other.app)
        .post('/turn-limit/valves/user/update')
        .query({ user_id: 'frank' })
        .set(other.auth)
        .send({ max_turns: '2' })
        .expect(200);
      expectJsonError(await send('frank'), 429, /limit is 2/);
      expect((await send('grace')).status).toBe(200);
    } finally {
      await other.dispose();
    }
  });
});
