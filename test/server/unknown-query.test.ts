import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { expectJsonError } from './helpers/http.js';

/** A query parameter a route does not read is a 400 naming it, never silently ignored (a filter not applied). */
describe('unknown query parameters', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime({ filters: ['system-prefix.ts'] });
  });
  afterAll(async () => runtime.dispose());
  const get = (path: string) => request(runtime.app).get(path).set(runtime.auth);

  it('/usage?user_id= (the parameter is `user`) → 400 naming it, not every user’s records', async () => {
    const response = await get('/usage?user_id=alice');
    expectJsonError(response, 400, /^Unknown query parameter "user_id" \(known: user, model, chat, /);
    expect(response.body.errors).toEqual([{ path: 'user_id', message: 'unknown query parameter' }]);
    expect((await get('/usage?user=alice')).status).toBe(200);
  });

  it.each([
    ['/usage?user=alice&userid=1&sort=cost', '"userid", "sort"'],
    ['/v1/usage?group=day', '"group"'],
    ['/usage/daily?days=7&user=alice', '"user"'],
    ['/usage/context?days=7&group_by=user', '"group_by"'],
    ['/usage/caps?user=alice', '"user"'],
    ['/pricing/status?refresh=1', '"refresh"'],
    ['/pricing/gpt-4o?base_model=gpt-4o', '"base_model"'],
    ['/system-prefix/valves/user?user_id=u1&user=u2', '"user"'],
  ])('%s → 400 naming %s', async (path, named) => {
    expectJsonError(await get(path), 400, new RegExp(`^Unknown query parameters? ${named} \\(`));
  });

  it('known parameters still answer', async () => {
    for (const path of [
      '/usage?user=alice&model=gpt-4o&group_by=day&format=json&limit=10',
      '/usage/daily?days=7&group_by=user',
      '/usage/context?days=7',
      '/usage/caps',
      '/pricing/status',
      '/system-prefix/valves/user?user_id=u1',
    ]) {
      expect({ path, status: (await get(path)).status }).toEqual({ path, status: 200 });
    }
    const update = await request(runtime.app)
      .post('/system-prefix/valves/user/update?user_id=u1&extra=1')
      .set(runtime.auth)
      .send({ prefix: 'x' });
    expectJsonError(update, 400, /^Unknown query parameter "extra" \(known: user_id\)/);
  });
});
