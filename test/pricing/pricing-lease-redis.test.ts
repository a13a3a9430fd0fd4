import { afterEach, describe, expect, inject, it } from 'vitest';
import { createPricingService } from '../../src/runtime/pricing/pricing-service.js';
import { createStateStore } from '../../src/state/create-state-store.js';
import type { StateStore } from '../../src/state/types.js';
import { silentLogger } from '../../src/core/util/logger.js';
import { modelList, sendJson, startOpenRouter } from './helpers/openrouter-server.js';
import { harness } from './helpers/service-harness.js';
import { waitFor } from '../helpers/wait-for.js';

const redisUrl = inject('redisUrl');
if (!redisUrl && process.env.CI) throw new Error('Redis is required under CI for the pricing lease test');
if (!redisUrl) console.warn('[pricing-lease-redis] skipped: no Redis available locally (inject("redisUrl") is empty)');

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function redisStore(prefix: string): Promise<StateStore> {
  const store = await createStateStore({
    config: {
      REDIS_URL: redisUrl,
      REDIS_PREFIX: prefix,
      STATE_TIMEOUT_MS: 1000,
      LEDGER_QUEUE_MAX: 100,
      sqlitePath: '',
    },
    logger: silentLogger(),
  });
  cleanups.push(() => store.close());
  return store;
}

describe.skipIf(!redisUrl)('pricing refresh lease on a real Redis', () => {
  it('two replicas: one refresh per interval, the other adopts the new table from the store', async () => {
    const server = await startOpenRouter((_request, response) =>
      setTimeout(
        () =>
          sendJson(
            response,
            modelList(undefined, (model) =>
              model.id === 'openai/gpt-4o'
                ? { ...model, pricing: { prompt: '0.000002', completion: '0.00001' } }
                : model,
            ),
          ),
        150,
      ),
    );
    cleanups.push(server.close);
    const prefix = `eunoe-test-${process.pid}-${Date.now()}:`;
    const [storeA, storeB] = [await redisStore(prefix), await redisStore(prefix)];
    const a = harness({ PRICING_URL: server.url, PRICING_FETCH: 'false' });
    const b = harness({ PRICING_URL: server.url, PRICING_FETCH: 'false' });
    cleanups.push(a.cleanup, b.cleanup);
    const replicaA = createPricingService({
      config: a.config(),
      logger: a.logger,
      store: storeA,
      fetch: { retries: 0 },
      leaseMs: 60_000,
    });
    const replicaB = createPricingService({
      config: b.config(),
      logger: b.logger,
      store: storeB,
      fetch: { retries: 0 },
      leaseMs: 60_000,
    });
    cleanups.push(
      () => replicaA.stop(),
      () => replicaB.stop(),
    );
    await replicaA.start();
    await replicaB.start();

    const outcomes = await Promise.all([replicaA.refresh(), replicaB.refresh()]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['skipped', 'updated']);
    expect(server.requests()).toBe(1);

    // The loser learns the table through the store's change channel.
    const loser = outcomes[0]!.status === 'skipped' ? replicaA : replicaB;
    await waitFor(() => loser.resolve('gpt-4o')?.prompt, { until: (prompt) => prompt === '0.000002' });
    expect(loser.status().source).toBe('live');

    // Later ticks in the same interval are skipped by both replicas.
    expect((await replicaA.refresh()).status).toBe('skipped');
    expect((await replicaB.refresh()).status).toBe('skipped');
    expect(server.requests()).toBe(1);
  });

  it('a failed refresh releases the lease so the other replica may try', async () => {
    const server = await startOpenRouter((_request, response, count) =>
      count === 1 ? sendJson(response, {}, 500) : sendJson(response, modelList()),
    );
    cleanups.push(server.close);
    const prefix = `eunoe-test-${process.pid}-${Date.now()}-f:`;
    const [storeA, storeB] = [await redisStore(prefix), await redisStore(prefix)];
    const a = harness({ PRICING_URL: server.url, PRICING_FETCH: 'false' });
    const b = harness({ PRICING_URL: server.url, PRICING_FETCH: 'false' });
    cleanups.push(a.cleanup, b.cleanup);
    const replicaA = createPricingService({
      config: a.config(),
      logger: a.logger,
      store: storeA,
      fetch: { retries: 0 },
    });
    const replicaB = createPricingService({
      config: b.config(),
      logger: b.logger,
      store: storeB,
      fetch: { retries: 0 },
    });
    await replicaA.start();
    await replicaB.start();
    expect((await replicaA.refresh()).status).toBe('failed');
    expect((await replicaB.refresh()).status).toBe('updated');
    expect(server.requests()).toBe(2);
  });
});
