import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { filterSource, noopFilter } from './helpers/filter-source.js';
import { expectJsonError, PREFIXES } from './helpers/http.js';

const throwing = filterSource(`export default defineFilter({
  inlet: () => { throw new Error('Rate limit exceeded. Try again later.'); },
  outlet: () => { throw 'a bare string'; },
});`);
const noBody = filterSource(`export default defineFilter({
  inlet: () => undefined,
  outlet: async () => null,
});`);
const arrayBody = filterSource(`export default defineFilter({
  inlet: ({ body }) => [body],
});`);
const limited = filterSource(`export default defineFilter({
  inlet: () => { throw new FilterError(429, 'Your monthly budget of $20.00 is used up'); },
  outlet: async () => { throw new FilterError(403, 'Not for you'); },
});`);

describe('error statuses and their JSON shape', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime({
      sources: {
        'echo.ts': noopFilter(),
        'throwing.ts': throwing,
        'no-body.ts': noBody,
        'array-body.ts': arrayBody,
        'limited.ts': limited,
      },
    });
  });
  afterAll(async () => runtime.dispose());
  const envelope = {
    body: { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] },
    user: { id: 'u1', role: 'user' },
  };

  describe.each(PREFIXES)('prefix "%s"', (prefix) => {
    it('400 for invalid JSON', async () => {
      for (const route of ['/echo/filter/inlet', '/echo/valves/update', '/pipelines/delete']) {
        const method = route === '/pipelines/delete' ? 'delete' : 'post';
        const response = await request(runtime.app)
          [method](`${prefix}${route}`)
          .set(runtime.auth)
          .set('Content-Type', 'application/json')
          .send('{"body": {"model": "gpt-4o",');
        expectJsonError(response, 400);
      }
    });

    it('400 for an envelope without `body` or with a non-object `body`/`user`', async () => {
      for (const payload of [
        { user: { id: 'u1' } },
        {},
        { body: 'text' },
        { body: [1, 2] },
        { body: null },
        { body: {}, user: 'u1' },
        [envelope],
      ]) {
        const response = await request(runtime.app).post(`${prefix}/echo/filter/inlet`).set(runtime.auth).send(payload);
        expectJsonError(response, 400);
      }
      const missing = await request(runtime.app)
        .post(`${prefix}/echo/filter/outlet`)
        .set(runtime.auth)
        .send({ user: null });
      expectJsonError(missing, 400);
      expect(missing.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'body' })]));
    });

    it('400 for a request without a JSON body at all', async () => {
      const response = await request(runtime.app).post(`${prefix}/echo/filter/inlet`).set(runtime.auth);
      expectJsonError(response, 400);
      const text = await request(runtime.app)
        .post(`${prefix}/echo/filter/inlet`)
        .set(runtime.auth)
        .set('Content-Type', 'text/plain')
        .send(JSON.stringify(envelope));
      expect(text.status).toBeGreaterThanOrEqual(400);
      expect(text.status).toBeLessThan(500);
      expectJsonError(text, text.status);
    });

    it('404 for an unknown filter id on every id route', async () => {
      const hooks = await request(runtime.app).post(`${prefix}/nope/filter/inlet`).set(runtime.auth).send(envelope);
      expectJsonError(hooks, 404, 'Filter nope not found');
      const outlet = await request(runtime.app).post(`${prefix}/nope/filter/outlet`).set(runtime.auth).send(envelope);
      expectJsonError(outlet, 404, 'Filter nope not found');
      for (const route of [
        '/nope/valves',
        '/nope/valves/spec',
        '/nope/valves/user/spec',
        '/nope/valves/user?user_id=a',
      ]) {
        expectJsonError(
          await request(runtime.app).get(`${prefix}${route}`).set(runtime.auth),
          404,
          'Pipeline nope not found',
        );
      }
      expectJsonError(
        await request(runtime.app).post(`${prefix}/nope/valves/update`).set(runtime.auth).send({}),
        404,
        'Pipeline nope not found',
      );
      expectJsonError(
        await request(runtime.app).delete(`${prefix}/pipelines/delete`).set(runtime.auth).send({ id: 'nope' }),
        404,
        'Pipeline nope not found',
      );
    });

    it('404 {"detail":"Not Found"} for unknown routes and hooks', async () => {
      for (const route of ['/nothing', '/a/b/c/d', '/echo/filter', '/echo/valves/other', '/models/extra']) {
        expectJsonError(await request(runtime.app).get(`${prefix}${route}`).set(runtime.auth), 404, 'Not Found');
      }
    });

    it('a hook other than inlet/outlet does not exist: 404 for every method', async () => {
      expectJsonError(
        await request(runtime.app).post(`${prefix}/echo/filter/stream`).set(runtime.auth).send(envelope),
        404,
        'Not Found',
      );
      expectJsonError(
        await request(runtime.app).get(`${prefix}/echo/filter/stream`).set(runtime.auth),
        404,
        'Not Found',
      );
    });

    it('405 {"detail":"Method Not Allowed"} for a known route with the wrong method', async () => {
      const cases: Array<['get' | 'post' | 'put' | 'delete' | 'patch', string]> = [
        ['post', '/models'],
        ['delete', '/models'],
        ['post', '/pipelines'],
        ['get', '/pipelines/add'],
        ['get', '/pipelines/upload'],
        ['post', '/pipelines/delete'],
        ['get', '/pipelines/reload'],
        ['get', '/echo/filter/inlet'],
        ['put', '/echo/filter/outlet'],
        ['post', '/echo/valves'],
        ['delete', '/echo/valves/spec'],
        ['get', '/echo/valves/update'],
        ['patch', '/echo/valves/user/update'],
      ];
      for (const [method, route] of cases) {
        const response = await request(runtime.app)[method](`${prefix}${route}`).set(runtime.auth).send({});
        expectJsonError(response, 405, 'Method Not Allowed');
      }
    });

    it('500 naming the filter and the hook, with the message, when a hook throws', async () => {
      const inlet = await request(runtime.app).post(`${prefix}/throwing/filter/inlet`).set(runtime.auth).send(envelope);
      expectJsonError(inlet, 500, 'Filter throwing inlet failed: Rate limit exceeded. Try again later.');
      const outlet = await request(runtime.app)
        .post(`${prefix}/throwing/filter/outlet`)
        .set(runtime.auth)
        .send(envelope);
      expectJsonError(outlet, 500, /a bare string/);
    });

    it('500 when a hook returns no body (undefined, null or an array)', async () => {
      expectJsonError(
        await request(runtime.app).post(`${prefix}/no-body/filter/inlet`).set(runtime.auth).send(envelope),
        500,
        /no body/,
      );
      expectJsonError(
        await request(runtime.app).post(`${prefix}/no-body/filter/outlet`).set(runtime.auth).send(envelope),
        500,
        /no body/,
      );
      expectJsonError(
        await request(runtime.app).post(`${prefix}/array-body/filter/inlet`).set(runtime.auth).send(envelope),
        500,
        /no body/,
      );
    });

    it('a FilterError keeps its own status (429, 403)', async () => {
      expectJsonError(
        await request(runtime.app).post(`${prefix}/limited/filter/inlet`).set(runtime.auth).send(envelope),
        429,
        'Your monthly budget of $20.00 is used up',
      );
      expectJsonError(
        await request(runtime.app).post(`${prefix}/limited/filter/outlet`).set(runtime.auth).send(envelope),
        403,
        'Not for you',
      );
    });
  });

  it('never answers plain text or HTML (malformed paths, odd content types, huge ids)', async () => {
    const responses = [
      await request(runtime.app).get('/%E0%A4%A/valves').set(runtime.auth),
      await request(runtime.app)
        .post('/echo/filter/inlet')
        .set(runtime.auth)
        .set('Content-Type', 'application/json')
        .send('null'),
      await request(runtime.app)
        .post('/echo/filter/inlet')
        .set(runtime.auth)
        .set('Content-Type', 'application/json; charset=latin-7')
        .send('{}'),
      await request(runtime.app)
        .post('/echo/filter/inlet')
        .set(runtime.auth)
        .set('Content-Type', 'application/json')
        .set('Content-Encoding', 'gzip')
        .send('not gzip'),
      await request(runtime.app)
        .get(`/${'x'.repeat(5000)}/valves`)
        .set(runtime.auth),
      await request(runtime.app).post('/pipelines/upload').set(runtime.auth).send({ file: 'x.ts' }),
      await request(runtime.app).post('/pipelines/add').set(runtime.auth).send({ url: 42 }),
      await request(runtime.app).delete('/pipelines/delete').set(runtime.auth).send({}),
    ];
    for (const response of responses) {
      expect(response.status).toBeGreaterThanOrEqual(400);
      expectJsonError(response, response.status);
      expect(response.text).not.toMatch(/<html|<!DOCTYPE|<pre>/i);
    }
  });
});

describe('headers on every answer', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime({ sources: { 'echo.ts': noopFilter() } });
  });
  afterAll(async () => runtime.dispose());

  it('X-Process-Time (whole seconds) on successes and errors', async () => {
    const responses = [
      await request(runtime.app).get('/'),
      await request(runtime.app).get('/v1/models').set(runtime.auth),
      await request(runtime.app).get('/models'),
      await request(runtime.app).get('/nothing').set(runtime.auth),
      await request(runtime.app)
        .post('/echo/filter/inlet')
        .set(runtime.auth)
        .send({ body: { model: 'm' } }),
    ];
    for (const response of responses) expect(response.headers['x-process-time']).toMatch(/^\d+$/);
  });

  it('CORS headers on normal answers, echoing the origin with credentials', async () => {
    const response = await request(runtime.app)
      .get('/v1/models')
      .set(runtime.auth)
      .set('Origin', 'https://chat.example.org')
      .expect(200);
    expect(response.headers['access-control-allow-origin']).toBe('https://chat.example.org');
    expect(response.headers['access-control-allow-credentials']).toBe('true');
    const error = await request(runtime.app).get('/v1/models').set('Origin', 'https://chat.example.org').expect(401);
    expect(error.headers['access-control-allow-origin']).toBe('https://chat.example.org');
    const noOrigin = await request(runtime.app).get('/');
    expect(noOrigin.headers['access-control-allow-origin']).toBe('*');
  });

  it('an OPTIONS preflight succeeds without a key and allows the method and headers', async () => {
    for (const route of ['/v1/echo/filter/inlet', '/pipelines/delete', '/models']) {
      const response = await request(runtime.app)
        .options(route)
        .set('Origin', 'https://chat.example.org')
        .set('Access-Control-Request-Method', route === '/pipelines/delete' ? 'DELETE' : 'POST')
        .set('Access-Control-Request-Headers', 'authorization,content-type');
      expect(response.status).toBeGreaterThanOrEqual(200);
      expect(response.status).toBeLessThan(300);
      expect(response.headers['access-control-allow-origin']).toBe('https://chat.example.org');
      expect(response.headers['access-control-allow-methods']).toMatch(
        route === '/pipelines/delete' ? /DELETE/ : /POST/,
      );
      expect(response.headers['access-control-allow-headers']?.toLowerCase()).toMatch(/authorization/);
      expect(response.headers['access-control-allow-credentials']).toBe('true');
    }
  });
});

describe('a FilterError with a status that is not an error status', () => {
  let runtime: TestRuntime;
  const statuses = { s200: '200', s302: '302', s99: '99', s700: '700', snan: 'Number.NaN' };
  beforeAll(async () => {
    runtime = await createTestRuntime({
      sources: Object.fromEntries(
        Object.entries(statuses).map(([id, status]) => [
          `${id}.ts`,
          filterSource(
            `export default defineFilter({ inlet: () => { throw new FilterError(${status}, 'blocked by policy'); } });`,
          ),
        ]),
      ),
    });
  });
  afterAll(async () => runtime.dispose());

  it.each(Object.keys(statuses))(
    '%s still answers a JSON 500 with the message (never a success, redirect or HTML page)',
    async (id) => {
      const response = await request(runtime.app)
        .post(`/${id}/filter/inlet`)
        .set(runtime.auth)
        .send({ body: { model: 'gpt-4o' } });
      expectJsonError(response, 500, /blocked by policy/);
      expect(response.text).not.toMatch(/<pre>|at \w+ \(/);
    },
  );
});
