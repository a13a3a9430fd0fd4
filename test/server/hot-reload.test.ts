import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { filterSource, markerFilter } from './helpers/filter-source.js';
import { waitFor } from '../helpers/wait-for.js';

type Model = { id: string; name: string };

describe('hot reload (watch: true)', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime({
      watch: true,
      sources: {
        'first.ts': markerFilter({ name: 'First v1', marker: 'v1' }),
        'steady.ts': markerFilter({ name: 'Steady', marker: 'steady' }),
      },
    });
  });
  afterAll(async () => runtime.dispose());

  const models = async () =>
    (await request(runtime.app).get('/models').set(runtime.auth).expect(200)).body.data as Model[];
  const pipelines = async () =>
    (await request(runtime.app).get('/pipelines').set(runtime.auth).expect(200)).body.data as Array<{
      id: string;
      status: string;
      error?: string;
      load_error?: { error: string; line: number | null };
    }>;

  it('a new file appears without a restart', async () => {
    writeFileSync(path.join(runtime.filtersDir, 'second.ts'), markerFilter({ name: 'Second', marker: 'two' }));
    const found = await waitFor(models, { until: (list) => list.some((model) => model.id === 'second') });
    expect(found.find((model) => model.id === 'second')?.name).toBe('Second');
    const inlet = await request(runtime.app)
      .post('/second/filter/inlet')
      .set(runtime.auth)
      .send({ body: { model: 'm' } })
      .expect(200);
    expect(inlet.body.marker).toBe('two');
  });

  it('a changed file is re-imported: new name and new behaviour', async () => {
    writeFileSync(path.join(runtime.filtersDir, 'first.ts'), markerFilter({ name: 'First v2', marker: 'v2' }));
    await waitFor(models, { until: (list) => list.some((model) => model.id === 'first' && model.name === 'First v2') });
    const inlet = await request(runtime.app)
      .post('/first/filter/inlet')
      .set(runtime.auth)
      .send({ body: { model: 'm' } })
      .expect(200);
    expect(inlet.body.marker).toBe('v2');
  });

  it('saved valves survive a hot reload of the file', async () => {
    await request(runtime.app)
      .post('/first/valves/update')
      .set(runtime.auth)
      .send({ pipelines: ['gpt-4o', 'llama3'] })
      .expect(200);
    writeFileSync(path.join(runtime.filtersDir, 'first.ts'), markerFilter({ name: 'First v2b', marker: 'v2b' }));
    await waitFor(models, {
      until: (list) => list.some((model) => model.id === 'first' && model.name === 'First v2b'),
    });
    const valves = await request(runtime.app).get('/first/valves').set(runtime.auth).expect(200);
    expect(valves.body.pipelines).toEqual(['gpt-4o', 'llama3']);
    await request(runtime.app).post('/first/valves/update').set(runtime.auth).send({}).expect(200);
  });

  it('an edit that breaks the file keeps the last good version serving with a load error; fixing it switches', async () => {
    writeFileSync(
      path.join(runtime.filtersDir, 'first.ts'),
      filterSource('export default defineFilter({ name: "oops", inlet( });'),
    );
    await waitFor(pipelines, {
      until: (list) => list.some((entry) => entry.id === 'first' && entry.status === 'loaded' && entry.load_error),
    });
    expect((await models()).map((model) => model.id)).toContain('first');
    writeFileSync(path.join(runtime.filtersDir, 'first.ts'), markerFilter({ name: 'First v3', marker: 'v3' }));
    await waitFor(models, { until: (list) => list.some((model) => model.id === 'first' && model.name === 'First v3') });
    expect((await pipelines()).filter((entry) => entry.status === 'failed' || entry.load_error)).toEqual([]);
  });

  it('a deleted file disappears', async () => {
    rmSync(path.join(runtime.filtersDir, 'second.ts'));
    await waitFor(models, { until: (list) => !list.some((model) => model.id === 'second') });
    const response = await request(runtime.app)
      .post('/second/filter/inlet')
      .set(runtime.auth)
      .send({ body: { model: 'm' } });
    expect(response.status).toBe(404);
  });

  it('files that are not filters are ignored; the untouched filter kept serving throughout', async () => {
    writeFileSync(path.join(runtime.filtersDir, 'README.md'), '# notes');
    writeFileSync(path.join(runtime.filtersDir, 'types.d.ts'), 'export type X = 1;\n');
    writeFileSync(path.join(runtime.filtersDir, 'third.ts'), markerFilter({ name: 'Third' }));
    await waitFor(models, { until: (list) => list.some((model) => model.id === 'third') });
    const list = await pipelines();
    expect(list.map((entry) => entry.id).sort()).toEqual(['first', 'steady', 'third']);
    const inlet = await request(runtime.app)
      .post('/steady/filter/inlet')
      .set(runtime.auth)
      .send({ body: { model: 'm' } })
      .expect(200);
    expect(inlet.body.marker).toBe('steady');
  });
});

describe('without watch', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime({ sources: { 'first.ts': markerFilter({ name: 'First' }) } });
  });
  afterAll(async () => runtime.dispose());

  it('POST /pipelines/reload picks up added, changed and deleted files', async () => {
    writeFileSync(path.join(runtime.filtersDir, 'added.ts'), markerFilter({ name: 'Added' }));
    rmSync(path.join(runtime.filtersDir, 'first.ts'));
    const before = await request(runtime.app).get('/models').set(runtime.auth).expect(200);
    expect(before.body.data.map((model: Model) => model.id)).toEqual(['first']);
    const reload = await request(runtime.app).post('/v1/pipelines/reload').set(runtime.auth).expect(200);
    expect(reload.body).toMatchObject({ message: 'Pipelines reloaded successfully.', loaded: 1, failed: 0 });
    const after = await request(runtime.app).get('/models').set(runtime.auth).expect(200);
    expect(after.body.data.map((model: Model) => model.id)).toEqual(['added']);
  });
});
