import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { filterSource } from './helpers/filter-source.js';
import { expectJsonError, PREFIXES } from './helpers/http.js';

const guarded = filterSource(`export default defineFilter({
  valves: baseValves.extend({ max_turns: z.number().int().default(10), api_key: z.string().default('') }),
  userValves: z.object({ prefix: z.string().default(''), max_turns: z.number().int().default(5) }),
  inlet: ({ body, userValves }) => ({ ...body, userValves, proto: Object.getPrototypeOf(userValves) === Object.prototype }),
});`);

const ADMIN_DEFAULTS = { pipelines: ['*'], priority: 0, max_turns: 10, api_key: '' };
const USER_DEFAULTS = { prefix: '', max_turns: 5 };

/**
 * Valves updates name only valves: `{"__proto__": {...}}` (sent as raw JSON text, where it is an
 * own key) used to become the prototype of the coerced values and be applied as valve values.
 */
describe('prototype and unknown keys in valves updates', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime({ sources: { 'guarded.ts': guarded } });
  });
  afterAll(async () => runtime.dispose());

  const postRaw = (path: string, text: string) =>
    request(runtime.app).post(path).set(runtime.auth).set('Content-Type', 'application/json').send(text);
  const HOSTILE: Array<[string, string]> = [
    ['{"__proto__": {"max_turns": 99, "api_key": "stolen"}}', '__proto__'],
    ['{"max_turns": 7, "__proto__": {"api_key": "stolen"}}', '__proto__'],
    ['{"constructor": {"prototype": {"max_turns": 99}}}', 'constructor'],
    ['{"prototype": {"max_turns": 99}}', 'prototype'],
    ['{"max_turns": 7, "no_such_valve": 1}', 'no_such_valve'],
  ];

  it.each(PREFIXES.flatMap((prefix) => HOSTILE.map(([text, key]) => [prefix, text, key])))(
    'admin update %s %s → 400 naming %s, nothing saved',
    async (prefix, text, key) => {
      const response = await postRaw(`${prefix}/guarded/valves/update`, text);
      expectJsonError(response, 400, new RegExp(key));
      expect(response.body.errors).toContainEqual({ path: key, message: expect.any(String) });
      expect((await request(runtime.app).get('/guarded/valves').set(runtime.auth).expect(200)).body).toStrictEqual(
        ADMIN_DEFAULTS,
      );
    },
  );

  it.each(HOSTILE)('user update %s → 400 naming %s, nothing saved', async (text, key) => {
    const response = await postRaw('/guarded/valves/user/update?user_id=u1', text);
    expectJsonError(response, 400, new RegExp(key));
    const saved = await request(runtime.app)
      .get('/guarded/valves/user')
      .query({ user_id: 'u1' })
      .set(runtime.auth)
      .expect(200);
    expect(saved.body).toStrictEqual(USER_DEFAULTS);
  });

  it('valid updates still work', async () => {
    await postRaw('/guarded/valves/update', '{"max_turns": "12"}').expect(200);
    expect((await request(runtime.app).get('/guarded/valves').set(runtime.auth)).body.max_turns).toBe(12);
  });

  it('inline user.valves: prototype keys are never applied, unknown keys ignored, valid fields applied', async () => {
    const envelope =
      '{"body": {"model": "gpt-4o", "messages": []}, "user": {"id": "u2", "role": "user", "valves": {"__proto__": {"prefix": "evil", "max_turns": 99}, "constructor": {"prefix": "evil"}, "prototype": 1, "nope": 1, "max_turns": 3}}}';
    const response = await postRaw('/guarded/filter/inlet', envelope).expect(200);
    expect(response.body.userValves).toStrictEqual({ prefix: '', max_turns: 3 });
    expect(response.body.proto).toBe(true);
  });
});
