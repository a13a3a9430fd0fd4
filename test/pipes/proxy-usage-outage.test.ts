import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { createTestRuntime } from '../helpers/create-test-runtime.js';
import { redisServerBinary, startOwnedRedis } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait-for.js';
import { startFakeOpenAI } from './helpers/fake-openai.js';
import { sseContent } from './helpers/sse.js';

/**
 * A direct caller's reply through the openai-proxy during a Redis outage: the proxy could not read the reply claims
 * (which tell it whether an accounting outlet already recorded the reply), logged an ERROR and recorded nothing. Now
 * it records the reply (journaled while Redis is away) and it lands once Redis is back.
 */
const canRun = Boolean(inject('redisUrl')) && redisServerBinary() !== undefined;
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe.runIf(canRun)('openai-proxy usage during a Redis outage', () => {
  it('a proxied reply answered while Redis is stopped is recorded once it is back', async () => {
    const fake = await startFakeOpenAI();
    cleanups.push(() => fake.close());
    const redis = await startOwnedRedis();
    cleanups.push(() => redis.stop());
    const runtime = await createTestRuntime({
      filters: ['openai-proxy.ts'],
      env: { REDIS_URL: redis.url, REDIS_PREFIX: `eunoe-proxy-outage:${randomUUID()}:`, STATE_TIMEOUT_MS: '200' },
    });
    cleanups.push(() => runtime.dispose());
    await request(runtime.app)
      .post('/openai-proxy/valves/update')
      .set(runtime.auth)
      .send({ base_url: fake.url, api_key: 'sk-upstream' })
      .expect(200);
    const user = { id: `u-${randomUUID()}`, email: 'proxy-outage@example.com', role: 'user' };

    await redis.stop();
    const response = await request(runtime.app)
      .post('/v1/chat/completions')
      .set(runtime.auth)
      .send({ model: 'openai-proxy.gpt-4o-mini', user, messages: [{ role: 'user', content: 'Say hello' }] })
      .expect(200);
    expect(sseContent(response.text)).toBe('Hello from upstream');
    // Recorded after [DONE] went out: accepted into the journal while Redis is away.
    await waitFor(() => (runtime.store.health().queued ?? 0) >= 1, { timeoutMs: 10_000 });

    await redis.start();
    const records = await waitFor(
      async () => {
        const usage = await request(runtime.app).get(`/usage?user=${user.id}`).set(runtime.auth);
        return usage.status === 200 ? (usage.body.records as Array<Record<string, unknown>>) : [];
      },
      { until: (found) => found.length > 0, timeoutMs: 20_000, intervalMs: 100 },
    );
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ userId: user.id, promptTokens: 12, completionTokens: 5 });
  });
});
