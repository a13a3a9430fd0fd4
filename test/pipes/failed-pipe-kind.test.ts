import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { pipeSource } from './helpers/pipe-source.js';

/** Files that fail at each stage of loading, each declaring a different kind. */
const sources = {
  // Imports, but the export has no pipe(): the export tells (read in the worker that probes the import).
  'no-pipe.ts': pipeSource(`export default definePipe({ name: 'No pipe' });`),
  // Imports, but a valve has no default: a manifold, from its export.
  'no-default.ts': pipeSource(
    `export default definePipe({ name: 'M', valves: z.object({ key: z.string() }), models: [{ id: 'a' }], pipe: () => 'x' });`,
  ),
  // A syntax error: the source tells.
  'syntax-pipe.ts': pipeSource(`export default definePipe({ name: 'S', pipe: () => 'x' `),
  'syntax-manifold.ts': pipeSource(`export default definePipe({ name: 'S', models: () => [], pipe: () => 'x' `),
  'syntax-filter.ts': pipeSource(`export default defineFilter({ inlet: ({ body }) => body `),
  'syntax-unknown.ts': `import { make } from './nowhere.js';\nexport default make(`,
  // Loads, but its start-up fails: the loaded pipe tells.
  'bad-start.ts': pipeSource(
    `export default definePipe({ name: 'B', onStartup() { throw new Error('no upstream'); }, pipe: () => 'x' });`,
  ),
};

describe('files that fail to load are listed with the kind they declare', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime({ sources });
  });
  afterAll(async () => runtime.dispose());

  const expected = {
    'no-pipe': 'pipe',
    'no-default': 'manifold',
    'syntax-pipe': 'pipe',
    'syntax-manifold': 'manifold',
    'syntax-filter': 'filter',
    'syntax-unknown': 'unknown',
    'bad-start': 'pipe',
  };

  it('GET /pipelines and the dashboard status give each failed file its declared type', async () => {
    const pipelines = await request(runtime.app).get('/pipelines').set(runtime.auth).expect(200);
    const listed = Object.fromEntries(
      pipelines.body.data.map((entry: { id: string; type: string; status: string }) => [entry.id, entry]),
    );
    for (const [id, type] of Object.entries(expected))
      expect(listed[id], id).toMatchObject({ type, status: 'failed', error: expect.any(String) });
    const status = await request(runtime.app).get('/status').set(runtime.auth).expect(200);
    const types = Object.fromEntries(
      status.body.filters.map((entry: { id: string; type: string }) => [entry.id, entry.type]),
    );
    expect(types).toEqual(expected);
  });

  it('GET /models lists none of them (neither as models nor as filters)', async () => {
    const models = await request(runtime.app).get('/models').set(runtime.auth).expect(200);
    const ids = models.body.data.map((model: { id: string }) => model.id);
    for (const id of Object.keys(expected)) expect(ids.some((listed: string) => listed.startsWith(id))).toBe(false);
  });
});
