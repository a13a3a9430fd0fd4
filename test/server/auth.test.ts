import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, TEST_API_KEY, type TestRuntime } from '../helpers/create-test-runtime.js';
import { expectJsonError, PREFIXES } from './helpers/http.js';

type Method = 'get' | 'post' | 'delete';

/** Every route but `GET /` (both prefixes); the id is a real filter so only auth can reject. */
const ROUTES: Array<[Method, string]> = [
  ['get', '/models'],
  ['get', '/pipelines'],
  ['get', '/health'],
  ['post', '/pipelines/add'],
  ['post', '/pipelines/upload'],
  ['delete', '/pipelines/delete'],
  ['post', '/pipelines/reload'],
  ['post', '/turn-limit/filter/inlet'],
  ['post', '/turn-limit/filter/outlet'],
  ['get', '/turn-limit/valves'],
  ['get', '/turn-limit/valves/spec'],
  ['post', '/turn-limit/valves/update'],
  ['get', '/turn-limit/valves/user/spec'],
  ['get', '/turn-limit/valves/user?user_id=alice'],
  ['post', '/turn-limit/valves/user/update?user_id=alice'],
  // Eunoe's own routes (pricing, usage) are authenticated too.
  ['get', '/pricing/status'],
  ['get', '/pricing/openai/gpt-4o'],
  ['get', '/usage'],
  // Unknown ids and routes: auth is checked before anything is looked up.
  ['post', '/no-such-filter/filter/inlet'],
  ['get', '/no-such-filter/valves'],
  ['get', '/no/such/route'],
];

const CASES = PREFIXES.flatMap((prefix) => ROUTES.map(([method, route]) => [method, `${prefix}${route}`] as const));

describe('auth matrix', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime({ filters: ['turn-limit.ts'] });
  });
  afterAll(async () => runtime.dispose());

  const body = { body: { model: 'gpt-4o', messages: [] }, user: { id: 'u1', role: 'user' } };

  it.each(CASES)('%s %s without Authorization → 401 JSON', async (method, route) => {
    const response = await request(runtime.app)[method](route).send(body);
    expectJsonError(response, 401, 'Not authenticated');
  });

  it.each(CASES)('%s %s with a wrong key → 401 JSON', async (method, route) => {
    const response = await request(runtime.app)[method](route).set('Authorization', 'Bearer not-the-key').send(body);
    expectJsonError(response, 401, 'Invalid API key');
  });

  it.each(CASES)('%s %s with a non-Bearer scheme → 401 JSON', async (method, route) => {
    const basic = `Basic ${Buffer.from(`user:${TEST_API_KEY}`).toString('base64')}`;
    const response = await request(runtime.app)[method](route).set('Authorization', basic).send(body);
    expectJsonError(response, 401);
  });

  it('a key that only starts with the right key is rejected', async () => {
    const response = await request(runtime.app).get('/models').set('Authorization', `Bearer ${TEST_API_KEY}x`);
    expectJsonError(response, 401, 'Invalid API key');
  });

  it('the right key opens the read routes at both prefixes', async () => {
    for (const prefix of PREFIXES) {
      for (const route of [
        '/models',
        '/pipelines',
        '/turn-limit/valves',
        '/turn-limit/valves/spec',
        '/turn-limit/valves/user/spec',
        '/turn-limit/valves/user?user_id=alice',
      ]) {
        const response = await request(runtime.app).get(`${prefix}${route}`).set(runtime.auth);
        expect({ route: `${prefix}${route}`, status: response.status }).toEqual({
          route: `${prefix}${route}`,
          status: 200,
        });
      }
      await request(runtime.app).post(`${prefix}/turn-limit/filter/inlet`).set(runtime.auth).send(body).expect(200);
      await request(runtime.app).post(`${prefix}/turn-limit/filter/outlet`).set(runtime.auth).send(body).expect(200);
    }
  });

  it('GET / and GET /v1 need no key, and ignore a wrong one', async () => {
    for (const route of ['/', '/v1', '/v1/']) {
      await request(runtime.app).get(route).expect(200, { status: true });
      await request(runtime.app).get(route).set('Authorization', 'Bearer wrong').expect(200, { status: true });
    }
  });
});
