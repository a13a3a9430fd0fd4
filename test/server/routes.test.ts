import { existsSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { noopFilter } from './helpers/filter-source.js';
import { PREFIXES } from './helpers/http.js';
import { startLoopback, type LoopbackServer } from './helpers/loopback.js';
import { multipartFile } from './helpers/multipart.js';

/** Every route answers at `/X` and `/v1/X` with the shapes Open WebUI expects (right key → 200). */
describe.each(PREFIXES)('routes at prefix "%s"', (prefix) => {
  let runtime: TestRuntime;
  let files: LoopbackServer;
  beforeAll(async () => {
    runtime = await createTestRuntime({
      filters: ['turn-limit.ts', 'system-prefix.ts'],
      sources: { 'echo.ts': noopFilter({ name: 'Echo' }) },
      env: { ADD_URL_ALLOW_PRIVATE: 'true' }, // the file to add is served on loopback
    });
    files = await startLoopback({ '/added.ts': { kind: 'file', body: noopFilter({ name: 'Added' }) } });
  });
  afterAll(async () => {
    await files.close();
    await runtime.dispose();
  });
  const url = (route: string) => `${prefix}${route}`;

  it('GET / answers {"status": true} without a key', async () => {
    const response = await request(runtime.app)
      .get(prefix === '' ? '/' : prefix)
      .expect(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.body).toEqual({ status: true });
  });

  it('GET /models lists the filters the way Open WebUI reads them', async () => {
    const before = Math.floor(Date.now() / 1000);
    const response = await request(runtime.app).get(url('/models')).set(runtime.auth).expect(200);
    expect(response.body.object).toBe('list');
    expect(response.body.pipelines).toBe(true);
    const byId = Object.fromEntries(response.body.data.map((model: { id: string }) => [model.id, model]));
    expect(Object.keys(byId).sort()).toEqual(['echo', 'system-prefix', 'turn-limit']);
    expect(byId['turn-limit']).toEqual({
      id: 'turn-limit',
      name: 'Conversation Turn Limit',
      object: 'model',
      created: expect.any(Number),
      owned_by: 'openai',
      pipeline: { type: 'filter', valves: true, pipelines: [], priority: 0 },
    });
    expect(byId.echo.pipeline).toEqual({ type: 'filter', valves: true, pipelines: ['*'], priority: 0 });
    expect(byId['turn-limit'].created).toBeGreaterThanOrEqual(before);
    expect(byId['system-prefix'].pipeline).toEqual({ type: 'filter', valves: true, pipelines: ['*'], priority: -10 });
    // Ascending priority, like Open WebUI sorts filters.
    expect(response.body.data[0].id).toBe('system-prefix');
  });

  it('GET /pipelines lists every module with id, name, type and valves', async () => {
    const response = await request(runtime.app).get(url('/pipelines')).set(runtime.auth).expect(200);
    const entry = response.body.data.find((item: { id: string }) => item.id === 'echo');
    expect(entry).toMatchObject({ id: 'echo', name: 'Echo', type: 'filter', valves: true, status: 'loaded' });
    expect(response.body.data).toHaveLength(3);
  });

  it('GET /health answers with the filter counts', async () => {
    const response = await request(runtime.app).get(url('/health')).set(runtime.auth).expect(200);
    expect(response.body).toMatchObject({ status: true, filters: 3, failed: 0 });
  });

  it('POST /{id}/filter/inlet and /outlet return the hook result', async () => {
    const body = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] };
    for (const hook of ['inlet', 'outlet']) {
      const response = await request(runtime.app)
        .post(url(`/echo/filter/${hook}`))
        .set(runtime.auth)
        .send({ body, user: { id: 'u', role: 'user' } })
        .expect(200);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.body).toEqual(body);
    }
  });

  it('GET /{id}/valves, /valves/spec and POST /valves/update', async () => {
    const valves = await request(runtime.app).get(url('/turn-limit/valves')).set(runtime.auth).expect(200);
    // The shipped example is off until an admin targets models.
    expect(valves.body).toEqual({ pipelines: [], priority: 0, max_turns: 25, target_user_roles: ['user'] });
    const spec = await request(runtime.app).get(url('/turn-limit/valves/spec')).set(runtime.auth).expect(200);
    expect(spec.body).toMatchObject({ title: 'Valves', type: 'object' });
    expect(Object.keys(spec.body.properties).sort()).toEqual([
      'max_turns',
      'pipelines',
      'priority',
      'target_user_roles',
    ]);
    const updated = await request(runtime.app)
      .post(url('/turn-limit/valves/update'))
      .set(runtime.auth)
      .send({ ...valves.body, max_turns: prefix === '' ? '7' : '8' })
      .expect(200);
    expect(updated.body.max_turns).toBe(prefix === '' ? 7 : 8);
    const reread = await request(runtime.app).get(url('/turn-limit/valves')).set(runtime.auth).expect(200);
    expect(reread.body.max_turns).toBe(updated.body.max_turns);
  });

  it('per-user valve routes: /valves/user/spec, /valves/user?user_id=, /valves/user/update?user_id=', async () => {
    const spec = await request(runtime.app).get(url('/turn-limit/valves/user/spec')).set(runtime.auth).expect(200);
    expect(spec.body).toMatchObject({ title: 'UserValves', type: 'object' });
    expect(Object.keys(spec.body.properties)).toEqual(['max_turns']);
    const before = await request(runtime.app)
      .get(url('/turn-limit/valves/user'))
      .query({ user_id: 'alice' })
      .set(runtime.auth)
      .expect(200);
    expect(before.body).toEqual({ max_turns: null });
    const updated = await request(runtime.app)
      .post(url('/turn-limit/valves/user/update'))
      .query({ user_id: 'alice' })
      .set(runtime.auth)
      .send({ max_turns: '3' })
      .expect(200);
    expect(updated.body).toEqual({ max_turns: 3 });
    const after = await request(runtime.app)
      .get(url('/turn-limit/valves/user'))
      .query({ user_id: 'alice' })
      .set(runtime.auth)
      .expect(200);
    expect(after.body).toEqual({ max_turns: 3 });
  });

  it('POST /pipelines/upload installs a multipart `file`', async () => {
    const name = `uploaded${prefix.replace('/', '-')}.ts`;
    const upload = multipartFile(name, noopFilter({ name: 'Uploaded' }));
    const response = await request(runtime.app)
      .post(url('/pipelines/upload'))
      .set(runtime.auth)
      .set('Content-Type', upload.contentType)
      .send(upload.body)
      .expect(200);
    expect(response.body.status).toBe(true);
    expect(typeof response.body.detail).toBe('string');
    expect(existsSync(path.join(runtime.filtersDir, name))).toBe(true);
    const models = await request(runtime.app).get(url('/models')).set(runtime.auth).expect(200);
    expect(models.body.data.map((model: { id: string }) => model.id)).toContain(name.replace(/\.ts$/, ''));
  });

  it('POST /pipelines/add downloads {url}; DELETE /pipelines/delete removes {id}', async () => {
    const added = await request(runtime.app)
      .post(url('/pipelines/add'))
      .set(runtime.auth)
      .send({ url: files.url('/added.ts') })
      .expect(200);
    expect(added.body.status).toBe(true);
    expect(existsSync(path.join(runtime.filtersDir, 'added.ts'))).toBe(true);
    let models = await request(runtime.app).get(url('/models')).set(runtime.auth).expect(200);
    expect(models.body.data.map((model: { id: string }) => model.id)).toContain('added');

    const deleted = await request(runtime.app)
      .delete(url('/pipelines/delete'))
      .set(runtime.auth)
      .send({ id: 'added' })
      .expect(200);
    expect(deleted.body).toEqual({ status: true, detail: expect.any(String) });
    expect(existsSync(path.join(runtime.filtersDir, 'added.ts'))).toBe(false);
    models = await request(runtime.app).get(url('/models')).set(runtime.auth).expect(200);
    expect(models.body.data.map((model: { id: string }) => model.id)).not.toContain('added');
  });

  it('POST /pipelines/reload reloads every file', async () => {
    const response = await request(runtime.app).post(url('/pipelines/reload')).set(runtime.auth).expect(200);
    expect(response.body.message).toBe('Pipelines reloaded successfully.');
    const models = await request(runtime.app).get(url('/models')).set(runtime.auth).expect(200);
    expect(models.body.data.map((model: { id: string }) => model.id)).toEqual(
      expect.arrayContaining(['echo', 'system-prefix', 'turn-limit']),
    );
  });
});
