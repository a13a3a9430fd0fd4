import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRET_MASK } from '../../src/runtime/host/secret-valves.js';
import { createTestRuntime, SDK_SPECIFIER, type TestRuntime } from '../helpers/create-test-runtime.js';
import { expectJsonError } from './helpers/http.js';

/** Admin and user valves with defaults and a secret each; the inlet shows the values it was given. */
const tuned = `import { defineFilter, baseValves, secret, z } from ${JSON.stringify(SDK_SPECIFIER)};
export default defineFilter({
  name: 'Tuned',
  valves: baseValves.extend({
    pipelines: z.array(z.string()).default(['*']),
    max_tokens: z.number().int().min(0).default(16000),
    upstream_key: secret(z.string().default('')),
    label: z.string().nullable().default('standard'),
  }),
  userValves: z.object({ token: secret(z.string().default('')), note: z.string().default(''), count: z.number().default(1) }),
  inlet: ({ body, valves, userValves }) => ({ ...body, seen: { valves, userValves } }),
});
`;

/** An update merges: an omitted field keeps its value, `null` is the default, a masked secret stays. */
describe('valves updates merge over the current values', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime({ sources: { 'tuned.ts': tuned } });
  });
  afterAll(async () => runtime.dispose());
  const post = (path: string, body: object) => request(runtime.app).post(path).set(runtime.auth).send(body);
  const seen = async (userId = 'u1') =>
    (
      await post('/tuned/filter/inlet', {
        body: { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] },
        user: { id: userId },
      }).expect(200)
    ).body.seen;

  it('admin: a partial update changes only what it sends; null resets to the default; it survives a restart', async () => {
    await post('/tuned/valves/update', { max_tokens: 4000, upstream_key: 'sk-admin', label: 'custom' }).expect(200);
    // What a curl sends: one field.
    const partial = await post('/tuned/valves/update', { pipelines: 'gpt-4o' }).expect(200);
    expect(partial.body).toMatchObject({
      pipelines: ['gpt-4o'],
      max_tokens: 4000,
      upstream_key: SECRET_MASK,
      label: 'custom',
    });
    expect((await seen()).valves).toMatchObject({ pipelines: ['gpt-4o'], max_tokens: 4000, upstream_key: 'sk-admin' });
    // Open WebUI's "Default" button sends null: that field goes back to its default, the others stay.
    const reset = await post('/tuned/valves/update', { max_tokens: null, label: null, pipelines: ['*'] }).expect(200);
    expect(reset.body).toMatchObject({ max_tokens: 16000, label: 'standard', upstream_key: SECRET_MASK });
    // The whole form (the mask sent back) keeps the secret, as before.
    await post('/tuned/valves/update', { ...reset.body, max_tokens: '8000' }).expect(200);
    runtime = await runtime.restart();
    expect((await seen()).valves).toMatchObject({ max_tokens: 8000, upstream_key: 'sk-admin', label: 'standard' });
  });

  it('admin: an empty update changes nothing; bad fields are still refused one by one', async () => {
    const before = (await request(runtime.app).get('/tuned/valves').set(runtime.auth).expect(200)).body;
    expect((await post('/tuned/valves/update', {}).expect(200)).body).toEqual(before);
    expectJsonError(await post('/tuned/valves/update', { max_tokens: -1 }), 400, /max_tokens/);
    expectJsonError(await post('/tuned/valves/update', { nope: null }), 400, /nope/);
    expect((await request(runtime.app).get('/tuned/valves').set(runtime.auth).expect(200)).body).toEqual(before);
  });

  it('user valves: the same merge, per user', async () => {
    const user = (body: object, id = 'u1') => post(`/tuned/valves/user/update?user_id=${id}`, body).expect(200);
    await user({ token: 'tk-1', note: 'mine', count: 3 });
    expect((await user({ count: 5 })).body).toEqual({ token: SECRET_MASK, note: 'mine', count: 5 });
    expect((await user({ note: null })).body).toEqual({ token: SECRET_MASK, note: '', count: 5 });
    expect((await seen('u1')).userValves).toEqual({ token: 'tk-1', note: '', count: 5 });
    // Another user starts from the defaults.
    expect((await user({ count: 2 }, 'u2')).body).toEqual({ token: '', note: '', count: 2 });
  });
});
