import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { noopFilter } from './helpers/filter-source.js';
import { expectJsonError } from './helpers/http.js';

/** Valid JSON sent under another Content-Type is refused with 415 naming the type, not read as "no body". */
describe('Content-Type of a request body', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime({ sources: { 'echo.ts': noopFilter() } });
  });
  afterAll(async () => runtime.dispose());
  const envelope = JSON.stringify({
    body: { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] },
    user: { id: 'u1', role: 'user' },
  });

  it.each([
    ['text/plain', 'text/plain'],
    ['text/plain; charset=utf-8', 'text/plain'],
    ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded'],
  ])('%s → 415 naming it', async (type, media) => {
    for (const route of ['/echo/filter/inlet', '/echo/valves/update', '/v1/echo/filter/inlet']) {
      const response = await request(runtime.app)
        .post(route)
        .set(runtime.auth)
        .set('Content-Type', type)
        .send(envelope);
      expectJsonError(response, 415, `Content-Type must be application/json (received "${media}")`);
    }
  });

  it('a body without a Content-Type → 415', async () => {
    const response = await request(runtime.app)
      .post('/echo/filter/inlet')
      .set(runtime.auth)
      .set('Content-Type', '')
      .send(Buffer.from(envelope));
    expectJsonError(response, 415, /^Content-Type must be application\/json \(received /);
  });

  it('application/json (with or without charset) is read; a request without a body is still a 400', async () => {
    for (const type of ['application/json', 'application/json; charset=utf-8', 'Application/JSON']) {
      const response = await request(runtime.app)
        .post('/echo/filter/inlet')
        .set(runtime.auth)
        .set('Content-Type', type)
        .send(envelope);
      expect(response.status).toBe(200);
      expect(response.body.messages).toEqual([{ role: 'user', content: 'hi' }]);
    }
    expectJsonError(await request(runtime.app).post('/echo/filter/inlet').set(runtime.auth), 400);
  });
});
