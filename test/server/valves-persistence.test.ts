import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { filterSource } from './helpers/filter-source.js';

const version1 = filterSource(`export default defineFilter({
  name: 'Persisted',
  valves: baseValves.extend({
    max_turns: z.number().int().min(1).default(25),
    mode: z.enum(['fast', 'slow']).default('fast'),
    label: z.string().default('none'),
    old_field: z.string().default('old'),
  }),
  userValves: z.object({ prefix: z.string().default('') }),
  inlet: ({ body, valves, userValves }) => ({ ...body, valves, userValves }),
});`);

/** The same filter after an edit: `old_field` removed, `max_turns` now at most 5, `mode` lost "slow". */
const version2 = filterSource(`export default defineFilter({
  name: 'Persisted',
  valves: baseValves.extend({
    max_turns: z.number().int().min(1).max(5).default(3),
    mode: z.enum(['fast', 'turbo']).default('fast'),
    label: z.string().default('none'),
  }),
  userValves: z.object({ prefix: z.string().default('') }),
  inlet: ({ body, valves, userValves }) => ({ ...body, valves, userValves }),
});`);

describe('valves persistence across a restart', () => {
  let runtime: TestRuntime | undefined;
  afterEach(async () => {
    await runtime?.dispose();
    runtime = undefined;
  });

  it('saved admin and user valves survive a restart and reach the hooks', async () => {
    runtime = await createTestRuntime({ sources: { 'persisted.ts': version1 } });
    await request(runtime.app)
      .post('/persisted/valves/update')
      .set(runtime.auth)
      .send({ pipelines: ['*'], priority: '2', max_turns: '10', mode: 'slow', label: 'kept', old_field: 'x' })
      .expect(200);
    await request(runtime.app)
      .post('/persisted/valves/user/update')
      .query({ user_id: 'u1' })
      .set(runtime.auth)
      .send({ prefix: 'Be brief.' })
      .expect(200);

    runtime = await runtime.restart();
    const valves = await request(runtime.app).get('/v1/persisted/valves').set(runtime.auth).expect(200);
    expect(valves.body).toStrictEqual({
      pipelines: ['*'],
      priority: 2,
      max_turns: 10,
      mode: 'slow',
      label: 'kept',
      old_field: 'x',
    });
    const models = await request(runtime.app).get('/models').set(runtime.auth).expect(200);
    expect(models.body.data[0].pipeline.priority).toBe(2);
    const user = await request(runtime.app)
      .get('/persisted/valves/user')
      .query({ user_id: 'u1' })
      .set(runtime.auth)
      .expect(200);
    expect(user.body).toStrictEqual({ prefix: 'Be brief.' });
    const inlet = await request(runtime.app)
      .post('/persisted/filter/inlet')
      .set(runtime.auth)
      .send({ body: { model: 'm' }, user: { id: 'u1', role: 'user' } })
      .expect(200);
    expect(inlet.body.valves.max_turns).toBe(10);
    expect(inlet.body.userValves).toStrictEqual({ prefix: 'Be brief.' });
  });

  it('after the filter changes, saved values for removed fields are dropped and now-invalid values fall back to defaults', async () => {
    runtime = await createTestRuntime({ sources: { 'persisted.ts': version1 } });
    await request(runtime.app)
      .post('/persisted/valves/update')
      .set(runtime.auth)
      .send({ pipelines: ['gpt-4o'], priority: 0, max_turns: '10', mode: 'slow', label: 'kept', old_field: 'x' })
      .expect(200);
    writeFileSync(path.join(runtime.filtersDir, 'persisted.ts'), version2);

    runtime = await runtime.restart();
    const pipelines = await request(runtime.app).get('/pipelines').set(runtime.auth).expect(200);
    expect(pipelines.body.data).toEqual([expect.objectContaining({ id: 'persisted', status: 'loaded' })]);
    const valves = await request(runtime.app).get('/persisted/valves').set(runtime.auth).expect(200);
    // max_turns 10 > new max 5 → default 3; "slow" no longer allowed → default; the rest kept.
    expect(valves.body).toStrictEqual({
      pipelines: ['gpt-4o'],
      priority: 0,
      max_turns: 3,
      mode: 'fast',
      label: 'kept',
    });
    // The filter works with them.
    const inlet = await request(runtime.app)
      .post('/persisted/filter/inlet')
      .set(runtime.auth)
      .send({ body: { model: 'gpt-4o' } })
      .expect(200);
    expect(inlet.body.valves).toStrictEqual(valves.body);
  });

  it('a reload (POST /pipelines/reload) keeps the saved valves too', async () => {
    runtime = await createTestRuntime({ sources: { 'persisted.ts': version1 } });
    await request(runtime.app)
      .post('/persisted/valves/update')
      .set(runtime.auth)
      .send({ max_turns: '4', label: 'reloaded' })
      .expect(200);
    await request(runtime.app).post('/pipelines/reload').set(runtime.auth).expect(200);
    const valves = await request(runtime.app).get('/persisted/valves').set(runtime.auth).expect(200);
    expect(valves.body).toMatchObject({ max_turns: 4, label: 'reloaded' });
  });

  it('an unreadable valves file falls back to the defaults and the filter still loads', async () => {
    runtime = await createTestRuntime({ sources: { 'persisted.ts': version1 } });
    // Nothing saved in the store for this id; a corrupt file on disk.
    mkdirSync(runtime.config.VALVES_DIR, { recursive: true });
    writeFileSync(path.join(runtime.config.VALVES_DIR, 'persisted.json'), '{ not json');
    runtime = await runtime.restart();
    const valves = await request(runtime.app).get('/persisted/valves').set(runtime.auth).expect(200);
    expect(valves.body).toMatchObject({ max_turns: 25, label: 'none' });
  });
});
