import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { filterSource, noopFilter, sdkImport } from './helpers/filter-source.js';
import { expectJsonError } from './helpers/http.js';

/** Line 4 (after the SDK import line) has the syntax error. */
const syntaxError = filterSource(`export default defineFilter({
  name: 'Broken',
  inlet({ body ) { return body; },
});`);

/** Throws while being imported, on line 3. */
const throwsOnImport = `${sdkImport}const answer = 42;
throw new Error('kaboom while importing');
export default defineFilter({ name: 'Never' });
`;

const noDefaultExport = `${sdkImport}export const filter = defineFilter({ name: 'Named only' });\n`;
const wrongShape = filterSource(`export default { name: 'Bad', inlet: 'not a function', valves: { max: 3 } };`);
const missingDefault = filterSource(`export default defineFilter({
  name: 'No default',
  valves: baseValves.extend({ api_key: z.string().describe('Required, no default') }),
  inlet: ({ body }) => body,
});`);
const userValvesMissingDefault = filterSource(`export default defineFilter({
  userValves: z.object({ token: z.string() }),
  inlet: ({ body }) => body,
});`);
const startupFails = filterSource(`export default defineFilter({
  onStartup() { throw new Error('cannot reach the database'); },
  inlet: ({ body }) => body,
});`);
const duplicateId = filterSource(
  `export default defineFilter({ id: 'good', name: 'Impostor', inlet: ({ body }) => ({ ...body, impostor: true }) });`,
);

const FAILED: Record<string, RegExp> = {
  'syntax-error': /import failed/i,
  'throws-on-import': /kaboom while importing/,
  'no-default-export': /no default export/,
  'wrong-shape': /inlet/,
  'missing-default': /api_key/,
  'user-valves-missing-default': /userValves.*token/,
  'startup-fails': /onStartup failed.*cannot reach the database/,
};

describe('loader isolation', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime({
      filters: ['turn-limit.ts'],
      sources: {
        'good.ts': noopFilter({ name: 'Good' }),
        'syntax-error.ts': syntaxError,
        'throws-on-import.ts': throwsOnImport,
        'no-default-export.ts': noDefaultExport,
        'wrong-shape.ts': wrongShape,
        'missing-default.ts': missingDefault,
        'user-valves-missing-default.ts': userValvesMissingDefault,
        'startup-fails.ts': startupFails,
        'zz-duplicate.ts': duplicateId,
        'notes.txt': 'not a filter',
        'types.d.ts': 'export type X = 1;\n',
      },
    });
  });
  afterAll(async () => runtime.dispose());

  it('GET /pipelines lists each broken file as failed with its error', async () => {
    const response = await request(runtime.app).get('/pipelines').set(runtime.auth).expect(200);
    const byId = Object.fromEntries(response.body.data.map((entry: { id: string }) => [entry.id, entry]));
    for (const [id, error] of Object.entries(FAILED)) {
      expect(byId[id], id).toMatchObject({ id, status: 'failed', file: `${id}.ts` });
      expect(byId[id].error, id).toMatch(error);
    }
    expect(byId['zz-duplicate']).toMatchObject({ status: 'failed', file: 'zz-duplicate.ts' });
    expect(byId['zz-duplicate'].error).toMatch(/duplicate filter id "good"/);
    expect(byId.good).toMatchObject({ status: 'loaded', name: 'Good' });
    expect(byId['turn-limit']).toMatchObject({ status: 'loaded' });
    // Non-filter files are not listed at all.
    expect(Object.keys(byId).sort()).toEqual([...Object.keys(FAILED), 'good', 'turn-limit', 'zz-duplicate'].sort());
  });

  it('the line is reported when it is known (syntax error, throw at import)', async () => {
    const response = await request(runtime.app).get('/pipelines').set(runtime.auth).expect(200);
    const byId = Object.fromEntries(response.body.data.map((entry: { id: string }) => [entry.id, entry]));
    expect(byId['syntax-error'].line).toBe(4);
    expect(byId['throws-on-import'].line).toBe(3);
  });

  it('failed files are not in /models; the good filters keep working', async () => {
    const models = await request(runtime.app).get('/v1/models').set(runtime.auth).expect(200);
    expect(models.body.data.map((model: { id: string }) => model.id).sort()).toEqual(['good', 'turn-limit']);
    const body = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] };
    await request(runtime.app).post('/good/filter/inlet').set(runtime.auth).send({ body }).expect(200, body);
    await request(runtime.app)
      .post('/turn-limit/filter/inlet')
      .set(runtime.auth)
      .send({ body, user: { id: 'u', role: 'user' } })
      .expect(200, body);
    await request(runtime.app).get('/').expect(200, { status: true });
  });

  it('calling a failed filter answers a JSON error naming the load error, not a crash', async () => {
    const response = await request(runtime.app)
      .post('/throws-on-import/filter/inlet')
      .set(runtime.auth)
      .send({ body: { model: 'm' } });
    expectJsonError(response, 503, /kaboom while importing/);
    expectJsonError(await request(runtime.app).get('/throws-on-import/valves').set(runtime.auth), 404);
  });

  it('a reload keeps the same picture: failures listed, good filters serving', async () => {
    const reload = await request(runtime.app).post('/pipelines/reload').set(runtime.auth).expect(200);
    expect(reload.body).toMatchObject({ loaded: 2, failed: Object.keys(FAILED).length + 1 });
    await request(runtime.app)
      .post('/good/filter/outlet')
      .set(runtime.auth)
      .send({ body: { model: 'm' } })
      .expect(200, { model: 'm' });
    const health = await request(runtime.app).get('/health').set(runtime.auth).expect(200);
    expect(health.body).toMatchObject({ filters: 2, failed: Object.keys(FAILED).length + 1 });
  });

  it('a failed file can be deleted through the API', async () => {
    await request(runtime.app).delete('/pipelines/delete').set(runtime.auth).send({ id: 'wrong-shape' }).expect(200);
    const response = await request(runtime.app).get('/pipelines').set(runtime.auth).expect(200);
    expect(response.body.data.map((entry: { id: string }) => entry.id)).not.toContain('wrong-shape');
  });
});
