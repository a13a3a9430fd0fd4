import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { multimodalInletBody, openWebUiUser } from '../fixtures/openwebui-bodies.js';
import { filterSource, noopFilter } from './helpers/filter-source.js';
import { expectJsonError, PREFIXES } from './helpers/http.js';

/** A hook that sleeps 5 s unless its signal aborts first (the timeout aborts it). */
const sleepy = filterSource(`export default defineFilter({
  inlet: ({ body, signal }) => new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ ...body, slept: true }), 5000);
    signal.addEventListener('abort', () => { clearTimeout(timer); resolve({ ...body, aborted: true }); });
  }),
  outlet: ({ body }) => body,
});`);

describe('body size limit (BODY_LIMIT=2kb)', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime({ sources: { 'echo.ts': noopFilter() }, env: { BODY_LIMIT: '2kb' } });
  });
  afterAll(async () => runtime.dispose());

  it.each(PREFIXES)('413 JSON for a body over the limit, 200 under it (prefix "%s")', async (prefix) => {
    const small = { body: { model: 'gpt-4o', messages: [{ role: 'user', content: 'x'.repeat(1000) }] } };
    await request(runtime.app).post(`${prefix}/echo/filter/inlet`).set(runtime.auth).send(small).expect(200);
    const big = { body: { model: 'gpt-4o', messages: [{ role: 'user', content: 'x'.repeat(3000) }] } };
    const tooLarge = await request(runtime.app).post(`${prefix}/echo/filter/inlet`).set(runtime.auth).send(big);
    expectJsonError(tooLarge, 413);
    expect(tooLarge.headers['x-process-time']).toMatch(/^\d+$/);
    expectJsonError(
      await request(runtime.app)
        .post(`${prefix}/echo/valves/update`)
        .set(runtime.auth)
        .send({ junk: 'y'.repeat(3000) }),
      413,
    );
  });
});

describe('hook timeout (HOOK_TIMEOUT_MS=200)', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime({ sources: { 'sleepy.ts': sleepy }, env: { HOOK_TIMEOUT_MS: '200' } });
  });
  afterAll(async () => runtime.dispose());

  it.each(PREFIXES)('504 JSON naming the filter when a hook runs past the deadline (prefix "%s")', async (prefix) => {
    const response = await request(runtime.app)
      .post(`${prefix}/sleepy/filter/inlet`)
      .set(runtime.auth)
      .send({ body: { model: 'gpt-4o', messages: [] } });
    expectJsonError(response, 504, /sleepy.*timed out/);
    expect(response.headers['x-process-time']).toMatch(/^\d+$/);
    // The other hook of the same filter is unaffected.
    await request(runtime.app)
      .post(`${prefix}/sleepy/filter/outlet`)
      .set(runtime.auth)
      .send({ body: { model: 'gpt-4o' } })
      .expect(200, { model: 'gpt-4o' });
  });
});

describe('large bodies are accepted by default (50 MB class)', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime({ sources: { 'echo.ts': noopFilter() } });
  });
  afterAll(async () => runtime.dispose());

  it('the default limit is 50 MB', () => {
    expect(runtime.config.BODY_LIMIT).toBeGreaterThanOrEqual(50 * 1024 * 1024);
  });

  it('a ~5 MB base64 image body round-trips through inlet and outlet unchanged', async () => {
    const bytes = Buffer.alloc(3_900_000);
    for (let index = 0; index < bytes.length; index++) bytes[index] = (index * 7919) % 251;
    const dataUrl = `data:image/png;base64,${bytes.toString('base64')}`;
    expect(dataUrl.length).toBeGreaterThan(5_000_000);
    const body = multimodalInletBody(dataUrl);
    for (const hook of ['inlet', 'outlet']) {
      const response = await request(runtime.app)
        .post(`/v1/echo/filter/${hook}`)
        .set(runtime.auth)
        .send({ user: openWebUiUser(), body })
        .expect(200);
      expect(response.body.messages[0].content[1].image_url.url.length).toBe(dataUrl.length);
      expect(response.body).toStrictEqual(body);
    }
  });
});
