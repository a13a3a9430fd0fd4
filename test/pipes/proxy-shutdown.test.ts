import request from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';
import { PendingWork } from '../../src/runtime/pipes/pending-work.js';
import type { Ledger } from '../../src/domain/usage/types.js';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { startFakeOpenAI } from './helpers/fake-openai.js';
import { listen, postStream, sseData } from './helpers/sse.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('PendingWork', () => {
  it('settle() waits for tracked work, including work tracked while it waits', async () => {
    const pending = new PendingWork();
    const done: string[] = [];
    void pending.track(sleep(30).then(() => done.push('first')));
    void pending.track(
      sleep(10).then(() => {
        void pending.track(sleep(30).then(() => done.push('tracked meanwhile')));
        done.push('second');
      }),
    );
    await pending.settle(5_000);
    expect(done.sort()).toEqual(['first', 'second', 'tracked meanwhile']);
    expect(pending.size).toBe(0);
  });

  it('settle() gives up after its time limit; a failed work counts as settled', async () => {
    const pending = new PendingWork();
    void pending.track(Promise.reject(new Error('write failed'))).catch(() => undefined);
    void pending.track(new Promise(() => undefined));
    const started = Date.now();
    await pending.settle(50);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(pending.size).toBe(1);
  });
});

describe('openai-proxy: shutdown right after [DONE]', () => {
  let runtime: TestRuntime | undefined;
  let fake: Awaited<ReturnType<typeof startFakeOpenAI>> | undefined;
  afterAll(async () => {
    await runtime?.dispose();
    await fake?.close();
  });

  it('the ledger record written after [DONE] (a slow write) is in the ledger after a restart', async () => {
    fake = await startFakeOpenAI();
    runtime = await createTestRuntime({ filters: ['openai-proxy.ts'] });
    await request(runtime.app)
      .post('/openai-proxy/valves/update')
      .set(runtime.auth)
      .send({ base_url: fake.url, api_key: 'sk' })
      .expect(200);
    // The real ledger, each write 150 ms late (a Redis round trip, a busy disk).
    const real = runtime.services.ledger as Ledger;
    const writes: string[] = [];
    runtime.services.ledger = {
      ...real,
      async record(entry) {
        writes.push('started');
        await sleep(150);
        return real.record(entry);
      },
    };
    const server = await listen(runtime.app);
    const user = { id: 'u-shutdown', email: 's@example.com', name: 'S', role: 'user' };
    const answer = await postStream(
      `${server.url}/v1/chat/completions`,
      { model: 'openai-proxy.gpt-4o-mini', user, messages: [{ role: 'user', content: 'hi' }] },
      runtime.auth,
      () => false,
    );
    expect(answer.status).toBe(200);
    expect(sseData(answer.text).at(-1)).toBe('[DONE]');
    // What the server's stop does: the answered connection is closed, then the runtime (filters, store).
    await server.close();
    runtime = await runtime.restart();
    expect(writes).toEqual(['started']);
    const usage = await request(runtime.app).get(`/usage?user=${user.id}`).set(runtime.auth).expect(200);
    expect(usage.body.records).toEqual([
      expect.objectContaining({ userId: user.id, model: 'openai-proxy.gpt-4o-mini', promptTokens: 12 }),
    ]);
  });
});
