import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import {
  chatInletBody,
  inlineOutletBody,
  legacyOutletBody,
  multimodalInletBody,
  openWebUiUser,
  taskInletBody,
  toolCallInletBody,
} from '../fixtures/openwebui-bodies.js';
import { filterSource, markerFilter, noopFilter } from './helpers/filter-source.js';
import { PREFIXES } from './helpers/http.js';

/** A filter file with no hooks at all: the server must answer the body unchanged. */
const hookless = filterSource(`export default defineFilter({ name: 'Hookless' });`);

const INLET_BODIES = {
  chat: chatInletBody,
  task: taskInletBody,
  toolCalls: toolCallInletBody,
  multimodal: () => multimodalInletBody(),
};
const OUTLET_BODIES = { legacy: legacyOutletBody, inline: inlineOutletBody };

describe("Open WebUI's real bodies pass a no-op filter unchanged", () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime({ sources: { 'noop.ts': noopFilter(), 'hookless.ts': hookless } });
  });
  afterAll(async () => runtime.dispose());

  describe.each(['noop', 'hookless'])('filter %s', (id) => {
    it.each(Object.entries(INLET_BODIES))('inlet: %s body', async (_name, make) => {
      for (const prefix of PREFIXES) {
        const response = await request(runtime.app)
          .post(`${prefix}/${id}/filter/inlet`)
          .set(runtime.auth)
          .send({ user: openWebUiUser(), body: make() })
          .expect(200);
        expect(response.headers['content-type']).toMatch(/^application\/json/);
        expect(response.body).toStrictEqual(make());
      }
    });

    it.each(Object.entries(OUTLET_BODIES))(
      'outlet: %s body (keeps chat_id, session_id, id and message ids)',
      async (_name, make) => {
        for (const prefix of PREFIXES) {
          const response = await request(runtime.app)
            .post(`${prefix}/${id}/filter/outlet`)
            .set(runtime.auth)
            .send({ user: openWebUiUser(), body: make() })
            .expect(200);
          expect(response.body).toStrictEqual(make());
        }
      },
    );
  });

  it('outlet bodies come back as typed even when a user message starts with a flag (Open WebUI persists outlet changes)', async () => {
    const body = legacyOutletBody();
    body.messages[0]!.content = '!pin !full Remember: the schema is users(id, email).';
    for (const id of ['noop', 'hookless']) {
      const response = await request(runtime.app)
        .post(`/${id}/filter/outlet`)
        .set(runtime.auth)
        .send({ user: openWebUiUser(), body })
        .expect(200);
      expect(response.body).toStrictEqual(body);
    }
  });

  it('extra top-level envelope keys are ignored, not echoed', async () => {
    const response = await request(runtime.app)
      .post('/noop/filter/inlet')
      .set(runtime.auth)
      .send({ user: openWebUiUser(), body: chatInletBody(), __openwebui: { base_url: 'http://owui:8080', token: 't' } })
      .expect(200);
    expect(response.body).toStrictEqual(chatInletBody());
  });

  it('a null or absent user is accepted', async () => {
    await request(runtime.app)
      .post('/noop/filter/inlet')
      .set(runtime.auth)
      .send({ user: null, body: taskInletBody() })
      .expect(200, taskInletBody());
    await request(runtime.app)
      .post('/noop/filter/outlet')
      .set(runtime.auth)
      .send({ body: legacyOutletBody() })
      .expect(200, legacyOutletBody());
  });
});

describe('the pipelines valve targets models', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime({
      sources: {
        'only-gpt.ts': markerFilter({ pipelines: ['gpt-4o'], marker: 'gpt' }),
        'everyone.ts': markerFilter({ marker: 'all' }),
      },
    });
  });
  afterAll(async () => runtime.dispose());

  it('/models advertises the targets', async () => {
    const models = await request(runtime.app).get('/models').set(runtime.auth).expect(200);
    const byId = Object.fromEntries(
      models.body.data.map((model: { id: string; pipeline: unknown }) => [model.id, model.pipeline]),
    );
    expect(byId['only-gpt']).toMatchObject({ type: 'filter', pipelines: ['gpt-4o'] });
    expect(byId.everyone).toMatchObject({ type: 'filter', pipelines: ['*'] });
  });

  it.each(PREFIXES)(
    'a body for another model passes through unchanged; the target model is filtered (prefix "%s")',
    async (prefix) => {
      for (const hook of ['inlet', 'outlet']) {
        const other = { ...chatInletBody(), model: 'llama3.1:8b' };
        const passed = await request(runtime.app)
          .post(`${prefix}/only-gpt/filter/${hook}`)
          .set(runtime.auth)
          .send({ user: openWebUiUser(), body: other })
          .expect(200);
        expect(passed.body).toStrictEqual(other);
        const targeted = await request(runtime.app)
          .post(`${prefix}/only-gpt/filter/${hook}`)
          .set(runtime.auth)
          .send({ user: openWebUiUser(), body: chatInletBody() })
          .expect(200);
        expect(targeted.body).toStrictEqual({ ...chatInletBody(), marker: 'gpt', hook });
        const all = await request(runtime.app)
          .post(`${prefix}/everyone/filter/${hook}`)
          .set(runtime.auth)
          .send({ user: openWebUiUser(), body: other })
          .expect(200);
        expect(all.body.marker).toBe('all');
      }
    },
  );

  it('a body without a model passes a targeted filter unchanged', async () => {
    const body = { messages: [{ role: 'user', content: 'hi' }] };
    await request(runtime.app).post('/only-gpt/filter/inlet').set(runtime.auth).send({ body }).expect(200, body);
  });

  it('re-targeting through the valves form takes effect at once', async () => {
    await request(runtime.app)
      .post('/only-gpt/valves/update')
      .set(runtime.auth)
      .send({ pipelines: ['llama3.1:8b', 'my-workspace-model'], priority: 0 })
      .expect(200);
    const now = await request(runtime.app)
      .post('/only-gpt/filter/inlet')
      .set(runtime.auth)
      .send({ body: { model: 'my-workspace-model' } })
      .expect(200);
    expect(now.body.marker).toBe('gpt');
    const gpt = await request(runtime.app)
      .post('/only-gpt/filter/inlet')
      .set(runtime.auth)
      .send({ body: { model: 'gpt-4o' } })
      .expect(200);
    expect(gpt.body).toStrictEqual({ model: 'gpt-4o' });
    await request(runtime.app)
      .post('/only-gpt/valves/update')
      .set(runtime.auth)
      .send({ pipelines: ['gpt-4o'], priority: 0 })
      .expect(200);
  });
});
