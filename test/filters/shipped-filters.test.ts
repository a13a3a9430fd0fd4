import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import {
  chatInletBody,
  legacyOutletBody,
  multimodalInletBody,
  openWebUiUser,
  taskInletBody,
} from '../fixtures/openwebui-bodies.js';

/** The shipped example filters, through the real loader and HTTP, with Open WebUI's bodies. */
describe('shipped filters', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime({ filters: ['turn-limit.ts', 'system-prefix.ts'] });
  });
  afterAll(async () => runtime.dispose());

  const conversation = (turns: number) =>
    Array.from({ length: turns }, (_, turn) => [
      { role: 'user', content: `q${turn}` },
      { role: 'assistant', content: `a${turn}` },
    ])
      .flat()
      .slice(0, -1);
  const inlet = (id: string, body: Record<string, unknown>, user: Record<string, unknown> | null = openWebUiUser()) =>
    request(runtime.app).post(`/${id}/filter/inlet`).set(runtime.auth).send({ body, user });

  describe('turn-limit', () => {
    it('is off on a fresh install: long chats pass, /models advertises no target models', async () => {
      const body = { ...chatInletBody(), messages: conversation(40) };
      await inlet('turn-limit', body).expect(200, body);
      const models = await request(runtime.app).get('/models').set(runtime.auth).expect(200);
      expect(models.body.data.find((model: { id: string }) => model.id === 'turn-limit').pipeline.pipelines).toEqual(
        [],
      );
    });

    it('once targeted through the admin form, it applies', async () => {
      await request(runtime.app)
        .post('/turn-limit/valves/update')
        .set(runtime.auth)
        .send({ pipelines: ['*'], priority: 0, max_turns: '3', target_user_roles: ['user', 'pending'] })
        .expect(200);
    });

    it('max_turns is used: a conversation at the limit passes unchanged and one over it gets a JSON 429', async () => {
      const atLimit = { ...chatInletBody(), messages: conversation(3) };
      await inlet('turn-limit', atLimit).expect(200, atLimit);
      const over = await inlet('turn-limit', { ...chatInletBody(), messages: conversation(4) });
      expect(over.status).toBe(429);
      expect(over.headers['content-type']).toMatch(/^application\/json/);
      expect(over.body.detail).toMatch(/4 turns and the limit is 3/);
    });

    it('applies to targeted roles only; a missing user counts as role "user"', async () => {
      const body = { ...chatInletBody(), messages: conversation(5) };
      await inlet('turn-limit', body, { ...openWebUiUser(), role: 'admin' }).expect(200, body);
      expect((await inlet('turn-limit', body, { ...openWebUiUser(), role: 'pending' })).status).toBe(429);
      expect((await inlet('turn-limit', body, null)).status).toBe(429);
    });

    it('never blocks background tasks (metadata.task)', async () => {
      const task = { ...taskInletBody(), messages: conversation(9) };
      await inlet('turn-limit', task).expect(200, task);
    });

    it('has no outlet: the outlet body comes back unchanged', async () => {
      await request(runtime.app)
        .post('/turn-limit/filter/outlet')
        .set(runtime.auth)
        .send({ body: legacyOutletBody(), user: openWebUiUser() })
        .expect(200, legacyOutletBody());
    });
  });

  describe('system-prefix', () => {
    it('without prefixes it changes nothing', async () => {
      await inlet('system-prefix', chatInletBody()).expect(200, chatInletBody());
    });

    it('puts the admin prefix, then the user prefix, in front of the system prompt', async () => {
      await request(runtime.app)
        .post('/system-prefix/valves/update')
        .set(runtime.auth)
        .send({ prefix: 'Be concise.' })
        .expect(200);
      const user = openWebUiUser();
      await request(runtime.app)
        .post('/system-prefix/valves/user/update')
        .query({ user_id: user.id })
        .set(runtime.auth)
        .send({ prefix: 'Answer in French.' })
        .expect(200);
      const response = await inlet('system-prefix', chatInletBody(), user).expect(200);
      const expected = chatInletBody();
      expected.messages[0] = {
        role: 'system',
        content: `Be concise.\nAnswer in French.\n\n${expected.messages[0]!.content}`,
      };
      expect(response.body).toStrictEqual(expected);

      // Another user gets only the admin prefix; a user who disabled theirs too.
      const other = await inlet('system-prefix', chatInletBody(), { ...user, id: 'someone-else' }).expect(200);
      expect(other.body.messages[0].content.startsWith('Be concise.\n\n')).toBe(true);
      await request(runtime.app)
        .post('/system-prefix/valves/user/update')
        .query({ user_id: user.id })
        .set(runtime.auth)
        .send({ prefix: 'Answer in French.', enabled: 'false' })
        .expect(200);
      const disabled = await inlet('system-prefix', chatInletBody(), user).expect(200);
      expect(disabled.body.messages[0].content.startsWith('Be concise.\n\n')).toBe(true);
    });

    it('adds a system message when there is none, keeping the rest of the body', async () => {
      const body = multimodalInletBody();
      const response = await inlet('system-prefix', body, null).expect(200);
      expect(response.body).toStrictEqual({
        ...body,
        messages: [{ role: 'system', content: 'Be concise.' }, ...body.messages],
      });
    });
  });
});
