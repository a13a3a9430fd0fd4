import { randomUUID } from 'node:crypto';
import { setImmediate } from 'node:timers';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { StateUnavailableError } from '../../src/core/errors/index.js';
import { RedisStateStore } from '../../src/state/redis/redis-state-store.js';
import { redisServerBinary, startOwnedRedis } from '../helpers/redis-server.js';
import { captureLogger } from './helpers/capture-logger.js';
import { waitFor } from '../helpers/wait-for.js';
import { within } from './helpers/within.js';

// Starts and kills its own redis-server; the machine's Redis is never touched.
const canRun = Boolean(inject('redisUrl')) && redisServerBinary() !== undefined;
if (!canRun) {
  if (process.env.CI) throw new Error('redis-server is needed for the Redis journal tests under CI');
  console.warn('[state] Redis journal backpressure test skipped: redis-server is not installed');
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe.runIf(canRun)('the Redis ledger journal under load', () => {
  it('drains while writers with no pause keep writing behind its backlog: none refused, all land once', async () => {
    const redis = await startOwnedRedis();
    cleanups.push(() => redis.stop());
    const { logger } = captureLogger();
    const store = new RedisStateStore({
      url: `${redis.url}/3`,
      prefix: `eunoe-backpressure:${randomUUID()}:`,
      logger,
      timeoutMs: 500,
      queueMax: 500,
      maxRetryDelayMs: 200,
    });
    cleanups.push(() => store.close());
    expect(await store.waitUntilReady(5000)).toBe(true);

    // A backlog: writes accepted into the journal while Redis is away.
    await redis.stop();
    await waitFor(() => store.health().ok === false, { timeoutMs: 10_000 });
    const accepted: string[] = [];
    for (let index = 0; index < 200; index++) {
      const id = `down-${index}`;
      if (await store.append('ledger', { id, time: Date.now(), data: { index } })) accepted.push(id);
    }
    expect(store.health().queued).toBe(200);

    // Writers that never pause: a journaled write costs microseconds, so without backpressure they would refill the
    // journal faster than the replay empties it (filling it up, refused writes, a backlog that never drains).
    const refused: string[] = [];
    let running = true;
    const writer = async (name: string) => {
      for (let index = 0; running; index++) {
        const id = `${name}-${index}`;
        try {
          if (await within(store.append('ledger', { id, time: Date.now(), data: { name, index } }), 5000))
            accepted.push(id);
        } catch (error) {
          if (!(error instanceof StateUnavailableError)) throw error;
          refused.push(id);
        }
        await new Promise((resolve) => setImmediate(resolve)); // lets timers and sockets run, adds no delay
      }
    };
    // They start in the same turn as the store's reconnection (its 'ready' event, which also starts the replay), so
    // before the replay's first answer: behind the whole backlog, however long Redis takes to say it is up.
    let queuedAtStart = -1;
    let writers: Promise<unknown> = Promise.resolve();
    const ready = store.waitUntilReady(30_000).then((connected) => {
      queuedAtStart = store.health().queued ?? 0;
      if (connected) writers = Promise.all(['a', 'b', 'c', 'd'].map(writer));
      return connected;
    });
    try {
      await redis.start();
      expect(await ready).toBe(true);
      expect(queuedAtStart).toBe(200); // the replay had not landed anything yet
      // Liveness bound only (a loaded machine is slow): the journal empties while the writers still run.
      await waitFor(() => store.health().ok && store.health().queued === 0, { timeoutMs: 30_000, intervalMs: 20 });
      const atDrain = accepted.length;
      await waitFor(() => accepted.length >= atDrain + 200, { timeoutMs: 30_000 });
    } finally {
      running = false;
      await writers;
    }
    await waitFor(() => store.health().queued === 0, { timeoutMs: 10_000 });

    const stored = (await store.range('ledger')).map((record) => record.id);
    expect(refused).toEqual([]);
    expect(stored).toHaveLength(accepted.length);
    expect(new Set(stored)).toEqual(new Set(accepted));
  }, 90_000);
});
