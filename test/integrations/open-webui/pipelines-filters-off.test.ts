import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../../helpers/create-test-runtime.js';

describe('PIPELINES_FILTERS', () => {
  let runtime: TestRuntime | undefined;
  afterEach(async () => runtime?.dispose());

  it('off: /models lists no filter (Open WebUI calls none through the connection) while the Function chain still runs them', async () => {
    runtime = await createTestRuntime({ filters: ['system-prefix.ts'], env: { PIPELINES_FILTERS: 'off' } });
    const models = await request(runtime.app).get('/models').set(runtime.auth).expect(200);
    expect(
      models.body.data.filter((entry: { pipeline: { type: string } }) => entry.pipeline.type === 'filter'),
    ).toEqual([]);
    const listed = await request(runtime.app).get('/pipelines').set(runtime.auth).expect(200);
    expect(listed.body.data.map((entry: { id: string }) => entry.id)).toContain('system-prefix');
    await request(runtime.app)
      .post('/system-prefix/valves/update')
      .set(runtime.auth)
      .send({ prefix: 'Be brief.' })
      .expect(200);
    const chained = await request(runtime.app)
      .post('/integrations/open-webui/inlet')
      .set(runtime.auth)
      .send({ body: { model: 'm', messages: [{ role: 'user', content: 'hi' }] }, user: { id: 'u' } })
      .expect(200);
    expect(chained.body.body.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
  });

  it('on (the default): /models lists the filters', async () => {
    runtime = await createTestRuntime({ filters: ['system-prefix.ts'] });
    const models = await request(runtime.app).get('/models').set(runtime.auth).expect(200);
    expect(models.body.data.map((entry: { id: string }) => entry.id)).toContain('system-prefix');
  });
});
