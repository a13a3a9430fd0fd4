import { readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, SDK_SPECIFIER, type TestRuntime } from '../helpers/create-test-runtime.js';
import { expectJsonError } from '../server/helpers/http.js';

/** A filter whose valves nest objects two levels deep, admin and user side. */
const nested = `import { defineFilter, baseValves, z } from ${JSON.stringify(SDK_SPECIFIER)};
export default defineFilter({
  name: 'Nested',
  valves: baseValves.extend({
    routing: z.object({ fallback: z.object({ model: z.string().default('m'), tries: z.number().default(1) }).default({ model: 'm', tries: 1 }) }).default({ fallback: { model: 'm', tries: 1 } }),
  }),
  userValves: z.object({ style: z.object({ tone: z.string().default('plain') }).default({ tone: 'plain' }) }),
  inlet: ({ body }) => body,
});
`;

/**
 * Cap valves as an admin posts them (POST /spend-limit/valves/update over the app): a key a cap does not have is a
 * 400 that names it, and the caps saved before stay in force.
 */
describe('strict cap valves', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime({ filters: ['spend-limit.ts'], sources: { 'nested.ts': nested } });
  });
  afterAll(async () => runtime.dispose());

  const post = (path: string, body: unknown) =>
    request(runtime.app)
      .post(path)
      .set(runtime.auth)
      .send(body as object);
  const valves = async () => (await request(runtime.app).get('/spend-limit/valves').set(runtime.auth).expect(200)).body;
  /** A request of a user (role `user` unless said); priced (gpt-4o), so a $0.000001 cap has no room for it. */
  const inlet = (userId: string, role = 'user') =>
    post('/spend-limit/filter/inlet', {
      user: { id: userId, email: `${userId}@example.com`, name: userId, role },
      body: { model: 'gpt-4o', messages: [{ role: 'user', content: 'Summarise the report.' }], max_tokens: 100 },
    });

  it('role_limits: {"user": {"monthly": 5}} is a 400 naming "monthly"; the saved cap still blocks the user', async () => {
    await post('/spend-limit/valves/update', { role_limits: { user: { monthly_usd: 0.000001 } } }).expect(200);
    expectJsonError(await inlet('ann'), 429, /monthly budget/);
    const before = await valves();

    const typo = await post('/spend-limit/valves/update', { role_limits: { user: { monthly: 5 } } });
    expectJsonError(typo, 400, /role_limits\.user.*"monthly"/);
    expect(typo.body.errors).toEqual([{ path: 'role_limits.user', message: 'Unrecognized key: "monthly"' }]);
    // Typed in Open WebUI's form as JSON text: the same answer.
    expectJsonError(
      await post('/spend-limit/valves/update', { role_limits: '{"user": {"monthly": 5}}' }),
      400,
      /role_limits\.user.*"monthly"/,
    );

    expect(await valves()).toEqual(before);
    expect(before.role_limits).toEqual({ user: { daily_usd: null, monthly_usd: 0.000001 } });
    expectJsonError(await inlet('ann'), 429, /monthly budget/);
    // An update of another valve keeps the caps it does not name.
    const changed = await post('/spend-limit/valves/update', { warn_fraction: 0.5 }).expect(200);
    expect(changed.body).toMatchObject({ warn_fraction: 0.5, role_limits: before.role_limits });
    expectJsonError(await inlet('ann'), 429, /monthly budget/);

    // A valves file edited by hand with a stray key inside a cap: that key is dropped at start-up, the cap stays.
    const file = path.join(runtime.config.VALVES_DIR, 'spend-limit.json');
    const saved = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    writeFileSync(
      file,
      JSON.stringify({ ...saved, role_limits: { user: { monthly_usd: 0.000001, note: 'interns' } } }),
    );
    const later = new Date(Date.now() + 5000);
    utimesSync(file, later, later);
    runtime = await runtime.restart();
    expect((await valves()).role_limits).toEqual({ user: { daily_usd: null, monthly_usd: 0.000001 } });
    expectJsonError(await inlet('ann'), 429, /monthly budget/);
  });

  it('user_limits: a misspelt key is a 400 naming it, by id and by email; nothing is saved', async () => {
    await post('/spend-limit/valves/update', { user_limits: { 'bob@example.com': { daily_usd: 0.000001 } } }).expect(
      200,
    );
    expectJsonError(await inlet('bob', 'guest'), 429, /daily budget/);
    const before = await valves();
    const typo = await post('/spend-limit/valves/update', {
      user_limits: { 'bob@example.com': { daily_usd: 0.000001, dialy_usd: 3 } },
    });
    expectJsonError(typo, 400, /user_limits\.bob@example\.com.*"dialy_usd"/);
    expectJsonError(
      await post('/spend-limit/valves/update', { user_limits: { bob: { daily: 1 } } }),
      400,
      /user_limits\.bob.*"daily"/,
    );
    expect(await valves()).toEqual(before);
    expectJsonError(await inlet('bob', 'guest'), 429, /daily budget/);
  });

  it('any filter: an unknown key at any depth of an admin or user valve is a 400 naming it', async () => {
    const deep = await post('/nested/valves/update', { routing: { fallback: { model: 'x', retries: 2 } } });
    expectJsonError(deep, 400, /routing\.fallback.*"retries"/);
    const shallow = await post('/nested/valves/update', { routing: { fallbak: { model: 'x' } } });
    expectJsonError(shallow, 400, /routing.*"fallbak"/);
    const user = await post('/nested/valves/user/update?user_id=u1', { style: { tone: 'warm', colour: 'red' } });
    expectJsonError(user, 400, /style.*"colour"/);
    // Known keys still save.
    const ok = await post('/nested/valves/update', { routing: { fallback: { model: 'x', tries: 2 } } }).expect(200);
    expect(ok.body.routing).toEqual({ fallback: { model: 'x', tries: 2 } });
  });
});
