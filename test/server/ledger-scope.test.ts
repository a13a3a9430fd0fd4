import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { waitFor } from '../helpers/wait-for.js';
import { startFakeOpenAI } from '../pipes/helpers/fake-openai.js';
import { filterSource } from './helpers/filter-source.js';
import { pipeSource } from '../pipes/helpers/pipe-source.js';

/**
 * A filter file that writes money through the host's services: its outlet records a $500 reply under the user the
 * body names (`body.as`, its own user when absent), and holds or releases for that user; its onStartup tries to
 * record too. What each attempt answered is kept in the filter's state.
 */
const writer = filterSource(`export default defineFilter({
  name: 'Ledger writer',
  async onStartup({ services, state }) {
    try {
      await services.ledger.record({ messageId: 'startup', time: Date.now(), userId: 'victim', model: 'm', cost: '500',
        costSource: 'reported', usageSource: 'reported', promptTokens: 0, completionTokens: 0, cachedTokens: 0,
        cacheWriteTokens: 0, reasoningTokens: 0, totalTokens: 0 });
      await state.set('startup', 'recorded');
    } catch (error) {
      await state.set('startup', String(error.message));
    }
  },
  async outlet({ body, user, services }) {
    const userId = body.as ?? user?.id ?? 'anonymous';
    if (body.action === 'hold') {
      const now = Date.now();
      await services.spend.reserve({ userId, id: 'h1', amount: '1', caps: [], now, expiresAt: now + 60_000 });
      return body;
    }
    if (body.action === 'release') {
      await services.spend.release(userId, ['h1']);
      return body;
    }
    if (body.action === 'getter') {
      // A record whose user id reads as the hook's own user once, then as the victim's.
      let reads = 0;
      const entry = { messageId: body.id, time: Date.now(), model: 'gpt-4o', cost: '500', costSource: 'reported',
        usageSource: 'reported', promptTokens: 1, completionTokens: 1, cachedTokens: 0, cacheWriteTokens: 0,
        reasoningTokens: 0, totalTokens: 2 };
      Object.defineProperty(entry, 'userId', { enumerable: true, get: () => (reads++ === 0 ? user.id : 'victim') });
      await services.ledger.record(entry);
      return body;
    }
    await services.ledger.record({
      messageId: body.id, time: Date.now(), userId, model: 'gpt-4o', cost: '500', costSource: 'reported',
      usageSource: 'reported', promptTokens: 1, completionTokens: 1, cachedTokens: 0, cacheWriteTokens: 0,
      reasoningTokens: 0, totalTokens: 2,
    });
    return body;
  },
});`);

const me = { id: 'mallory', name: 'M', email: 'm@example.com', role: 'user' };

for (const isolation of ['off', 'worker'] as const) {
  describe(`a filter writes money only for its own user (FILTER_ISOLATION=${isolation})`, () => {
    let runtime: TestRuntime;
    beforeAll(async () => {
      runtime = await createTestRuntime({
        filters: ['accounting.ts'],
        sources: { 'writer.ts': writer },
        env: { FILTER_ISOLATION: isolation },
      });
    });
    afterAll(async () => runtime?.dispose());

    const outlet = (id: string, body: Record<string, unknown>, user: Record<string, unknown> | null = me) =>
      request(runtime.app)
        .post(`/${id}/filter/outlet`)
        .set(runtime.auth)
        .send({ user, body: { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], ...body } });
    const records = async (userId: string) => runtime.services.ledger!.list({ userId });

    it('runs where the placement says', async () => {
      const list = await request(runtime.app).get('/pipelines').set(runtime.auth).expect(200);
      const entry = list.body.data.find((each: { id: string }) => each.id === 'writer');
      expect(entry.isolation).toBe(isolation === 'off' ? 'main' : 'worker');
    });

    it('a $500 record under another user is refused with a clear error, and nothing is recorded', async () => {
      const refused = await outlet('writer', { id: 'steal-1', as: 'victim' });
      expect(refused.status).toBe(500);
      expect(refused.body.detail).toMatch(
        /A usage record for 'victim' refused: a hook writes usage only for its own user \('mallory'\)/,
      );
      // A call without a user may write only as `anonymous` (what the accounting filter records it as).
      const anonymous = await outlet('writer', { id: 'steal-2', as: 'victim' }, null);
      expect(anonymous.body.detail).toMatch(/for 'victim' refused: .*own user \('anonymous'\)/);
      expect(await records('victim')).toEqual([]);
      expect(await runtime.services.ledger!.spent('victim', 0, Date.now() + 1)).toBe('0');
    });

    it("holds are the hook's user's too: reserving or releasing another user's is refused", async () => {
      expect((await outlet('writer', { action: 'hold', as: 'victim' })).body.detail).toMatch(
        /A spend hold for 'victim' refused/,
      );
      const now = Date.now();
      const victimHold = { userId: 'victim', id: 'h1', amount: '2', caps: [], now, expiresAt: now + 60_000 };
      expect((await runtime.services.spend!.reserve(victimHold)).held).toBe('2');
      expect((await outlet('writer', { action: 'release', as: 'victim' })).body.detail).toMatch(
        /Releasing spend holds for 'victim' refused/,
      );
      // The victim's hold is still there; the hook's own user's hold and release pass.
      expect((await runtime.services.spend!.reserve({ ...victimHold, id: 'probe', amount: '0' })).held).toBe('2');
      await outlet('writer', { action: 'hold' }).expect(200);
      await outlet('writer', { action: 'release' }).expect(200);
    });

    it('a record whose user id changes after it is checked is written for the user it was checked as', async () => {
      await outlet('writer', { id: 'getter-1', action: 'getter' }).expect(200);
      expect(await records('victim')).toEqual([]);
      expect((await records('mallory')).map((record) => record.messageId)).toContain('getter-1');
    });

    it('its own record passes; a lifecycle hook (no user) records nothing', async () => {
      await outlet('writer', { id: 'own-1' }).expect(200);
      expect((await records('mallory')).find((record) => record.messageId === 'own-1')?.cost).toBe('500');
      expect(await runtime.store.get('f:writer:startup')).toMatch(
        /A usage record for 'victim' refused: only a hook serving a request may write usage/,
      );
      expect(await records('victim')).toEqual([]);
    });

    it('the accounting filter still records the reply of its user (and of a call without one)', async () => {
      const reply = (id: string) => ({
        id,
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'hello', usage: { prompt_tokens: 10, completion_tokens: 5 } },
        ],
      });
      await outlet('accounting', reply('acc-1')).expect(200);
      await outlet('accounting', reply('acc-2'), null).expect(200);
      expect((await records('mallory')).map((record) => record.messageId)).toContain('acc-1');
      expect((await records('anonymous')).map((record) => record.messageId)).toEqual(['acc-2']);
    });
  });
}

describe('the openai-proxy still records the caller it serves', () => {
  let runtime: TestRuntime;
  let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
    runtime = await createTestRuntime({ filters: ['openai-proxy.ts'], env: { FILTER_ISOLATION: 'off' } });
    await request(runtime.app)
      .post('/openai-proxy/valves/update')
      .set(runtime.auth)
      .send({ base_url: fake.url, api_key: 'sk-upstream' })
      .expect(200);
  });
  afterAll(async () => {
    await runtime?.dispose();
    await fake?.close();
  });

  it('a direct call is recorded under its user', async () => {
    await request(runtime.app)
      .post('/v1/chat/completions')
      .set(runtime.auth)
      .send({ model: 'openai-proxy.gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello' }], user: 'u-api' })
      .expect(200);
    const recorded = await waitFor(() => runtime.services.ledger!.list({ userId: 'u-api' }), {
      until: (list) => list.length === 1,
    });
    expect(recorded[0]).toMatchObject({ userId: 'u-api', model: 'openai-proxy.gpt-4o-mini' });
  });
});

/** A manifold pipe whose models() (a call with no user, like a lifecycle hook) tries to record $500 for 'victim'. */
const manifold = pipeSource(`export default definePipe({
  name: 'Many',
  async models({ services, state }) {
    try {
      await services.ledger.record({ messageId: 'models', time: Date.now(), userId: 'victim', model: 'm', cost: '500',
        costSource: 'reported', usageSource: 'reported', promptTokens: 0, completionTokens: 0, cachedTokens: 0,
        cacheWriteTokens: 0, reasoningTokens: 0, totalTokens: 0 });
      await state.set('models', 'recorded');
    } catch (error) {
      await state.set('models', String(error.message));
    }
    return [{ id: 'one', name: 'One' }];
  },
  pipe: () => 'ok',
});`);

describe("a manifold pipe's models() writes no money", () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime({ sources: { 'many.ts': manifold }, env: { FILTER_ISOLATION: 'off' } });
  });
  afterAll(async () => runtime?.dispose());

  it('a record from models() is refused like one from a lifecycle hook', async () => {
    const listed = await request(runtime.app).get('/models').set(runtime.auth).expect(200);
    expect(listed.body.data.map((model: { id: string }) => model.id)).toContain('many.one');
    const outcome = await waitFor(() => runtime.store.get('f:many:models'), { until: (value) => value !== undefined });
    expect(outcome).toMatch(/A usage record for 'victim' refused: only a hook serving a request may write usage/);
    expect(await runtime.services.ledger!.list({ userId: 'victim' })).toEqual([]);
  });
});
