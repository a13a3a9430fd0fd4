import { Router } from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { notFound } from '../../src/server/middleware/error-handler.js';
import { routeApp } from '../helpers/route-app.js';
import { methodNotAllowed, routeTable, type RouteEntry } from '../../src/server/middleware/method-not-allowed.js';
import { noopFilter } from './helpers/filter-source.js';
import { expectJsonError, PREFIXES } from './helpers/http.js';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete' | 'head';

/** A concrete path for a route pattern: `:param` → the loaded filter's id, `*rest` → a priced model id. */
function samplePath(pattern: string): string {
  return pattern.replace(/[{}]/g, '').replace(/\*\w+/g, 'openai/gpt-4o').replace(/:\w+/g, 'echo');
}

describe('routeTable and methodNotAllowed', () => {
  it('reads routes, array paths and nested routers with their mount paths; skips catch-alls', () => {
    const inner = Router();
    inner.get('/b', () => undefined);
    inner.post(['/c', '/d'], () => undefined);
    const outer = Router();
    outer.get('/a', () => undefined);
    outer.put('/a', () => undefined);
    outer.all('/any', () => undefined);
    outer.use('/in', inner);
    expect(routeTable(outer)).toEqual([
      { path: '/a', methods: ['GET', 'PUT'] },
      { path: '/in/b', methods: ['GET'] },
      { path: '/in/c', methods: ['POST'] },
      { path: '/in/d', methods: ['POST'] },
    ]);
  });

  it('refuses a RegExp path rather than leaving it out of the table', () => {
    const router = Router();
    router.get(/^\/x$/, () => undefined);
    expect(() => routeTable(router)).toThrow(/non-string path/);
  });

  it('Allow names the methods of every pattern the path matches', async () => {
    const table: RouteEntry[] = [
      { path: '/things/special', methods: ['POST'] },
      { path: '/things/:id', methods: ['GET', 'DELETE'] },
    ];
    const app = routeApp(methodNotAllowed(table), notFound);
    const response = await request(app).put('/things/special');
    expectJsonError(response, 405, 'Method Not Allowed');
    expect(response.headers.allow).toBe('DELETE, GET, HEAD, POST');
    expectJsonError(await request(app).put('/other'), 404, 'Not Found');
  });
});

describe('405 for a known path with another method, derived from the routers', () => {
  let runtime: TestRuntime;
  let table: RouteEntry[];
  beforeAll(async () => {
    runtime = await createTestRuntime({ sources: { 'echo.ts': noopFilter() } });
    table = routeTable(runtime.app.router as unknown as { stack: unknown[] });
  });
  afterAll(async () => runtime.dispose());

  it('the table holds every router of the app under both prefixes', () => {
    const paths = table.map((entry) => entry.path);
    for (const prefix of PREFIXES) {
      for (const path of [
        '/models',
        '/pipelines',
        '/pipelines/add',
        '/pipelines/upload',
        '/pipelines/delete',
        '/pipelines/reload',
        '/health',
        '/usage',
        '/pricing/status',
        '/pricing/*model',
        '/:id/filter/inlet',
        '/:id/filter/outlet',
        '/:id/valves',
        '/:id/valves/spec',
        '/:id/valves/update',
        '/:id/valves/user',
        '/:id/valves/user/spec',
        '/:id/valves/user/update',
      ]) {
        expect(paths).toContain(`${prefix}${path}`);
      }
    }
    expect(paths).toContain('/');
    expect(paths).not.toContain('/:id/filter/:hook');
  });

  it('every route answers its own methods with something other than 405', async () => {
    for (const entry of table) {
      for (const method of entry.methods) {
        const path = samplePath(entry.path);
        const response = await request(runtime.app)[method.toLowerCase() as Method](path).set(runtime.auth).send({});
        expect({ method, path, status: response.status }).not.toMatchObject({ status: 405 });
      }
    }
  });

  describe.each(PREFIXES)('prefix "%s"', (prefix) => {
    it.each<[Method, string, string]>([
      ['put', '/pipelines', 'GET, HEAD'],
      ['post', '/usage', 'GET, HEAD'],
      ['post', '/pricing/status', 'GET, HEAD'],
      ['post', '/pricing/openai/gpt-4o', 'GET, HEAD'],
      ['delete', '/models', 'GET, HEAD'],
      ['post', '/health', 'GET, HEAD'],
      ['get', '/echo/filter/inlet', 'POST'],
      ['head', '/pipelines/add', 'POST'],
      ['patch', '/echo/valves/user/update', 'POST'],
    ])('%s %s → 405, Allow: %s', async (method, path, allow) => {
      const call = request(runtime.app)[method](`${prefix}${path}`).set(runtime.auth);
      const response = method === 'head' ? await call : await call.send({});
      expect(response.status).toBe(405);
      expect(response.headers.allow).toBe(allow);
      if (method !== 'head') expectJsonError(response, 405, 'Method Not Allowed');
    });

    it('an unknown path is a 404 without Allow, whatever the method', async () => {
      for (const [method, path] of [
        ['get', '/nothing'],
        ['post', '/usage/extra'],
        ['put', '/echo/filter/stream'],
        ['delete', '/pricing'],
      ] as Array<[Method, string]>) {
        const response = await request(runtime.app)[method](`${prefix}${path}`).set(runtime.auth).send({});
        expectJsonError(response, 404, 'Not Found');
        expect(response.headers.allow).toBeUndefined();
      }
    });

    it('the wrong method without a key is still a 401 (auth first)', async () => {
      expectJsonError(await request(runtime.app).post(`${prefix}/usage`), 401);
    });

    it('an OPTIONS preflight on a known or unknown path is still a 2xx', async () => {
      for (const path of ['/usage', '/pricing/status', '/nothing']) {
        const response = await request(runtime.app)
          .options(`${prefix}${path}`)
          .set('Origin', 'https://chat.example.org')
          .set('Access-Control-Request-Method', 'GET');
        expect(response.status).toBe(204);
      }
    });
  });

  it('POST / (no key needed) is a 405 with Allow: GET, HEAD', async () => {
    const response = await request(runtime.app).post('/');
    expectJsonError(response, 405, 'Method Not Allowed');
    expect(response.headers.allow).toBe('GET, HEAD');
  });
});
