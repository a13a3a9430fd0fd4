import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { StateUnavailableError } from '../../src/core/errors/index.js';
import { createStateStore } from '../../src/state/create-state-store.js';
import { RedisStateStore } from '../../src/state/redis/redis-state-store.js';
import type { StateStore } from '../../src/state/types.js';
import { freePort, redisServerBinary, startOwnedRedis, type OwnedRedis } from '../helpers/redis-server.js';
import { captureLogger } from './helpers/capture-logger.js';
import { tempDir } from '../helpers/temp-store.js';
import { sleep, waitFor } from '../helpers/wait-for.js';
import { within } from './helpers/within.js';

// These tests start and kill their own redis-server processes; the machine's Redis is never touched.
const canRun = Boolean(inject('redisUrl')) && redisServerBinary() !== undefined;
if (!canRun) {
  if (process.env.CI) throw new Error('redis-server is needed for the Redis fault tests under CI');
  console.warn('[state] Redis fault tests skipped: redis-server is not installed');
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const unavailableLines = (lines: Array<{ msg: string }>) => lines.filter((line) => line.msg.includes('is unavailable'));
const backLines = (lines: Array<{ msg: string }>) => lines.filter((line) => line.msg.includes('is back after'));
const succeeds = (work: () => Promise<unknown>) => () =>
  work().then(
    () => true,
    () => false,
  );

describe.runIf(canRun)('Redis failure behaviour', () => {
  it('starts with Redis down, fails fast, logs once, queues ledger writes, then recovers by itself', async () => {
    const port = await freePort();
    const { logger, lines } = captureLogger();
    const store: StateStore = await within(
      createStateStore({
        config: {
          REDIS_URL: `redis://127.0.0.1:${port}/2`,
          REDIS_PREFIX: `eunoe-fault:${randomUUID()}:`,
          STATE_TIMEOUT_MS: 300,
          LEDGER_QUEUE_MAX: 100,
          sqlitePath: '/nonexistent/unused.db',
        },
        logger,
      }),
      10_000,
    );
    cleanups.push(() => store.close());
    expect(store.backend).toBe('redis');
    expect(store.health()).toMatchObject({ backend: 'redis', ok: false, queued: 0 });

    const calls = [
      store.get('k'),
      store.getMany(['a', 'b']),
      store.set('k', 1),
      store.increment('c'),
      store.acquireLease('job', 1000),
      store.publish('ch', 'm'),
      store.keys(''),
    ];
    for (const call of calls) await expect(within(call, 2000)).rejects.toBeInstanceOf(StateUnavailableError);
    expect(await within(store.append('ledger', { id: 'queued-1', time: 1, data: { usd: 0.5 } }), 2000)).toBe(true);
    expect(store.health().queued).toBe(1);
    const heard: string[] = [];
    store.subscribe('valves', (message) => heard.push(message)); // subscribed while Redis is down

    await sleep(700); // several reconnect attempts fail meanwhile
    for (let index = 0; index < 20; index++) await store.get('k').catch(() => undefined);
    expect(unavailableLines(lines)).toHaveLength(1);
    expect(unavailableLines(lines)[0]?.msg).toContain(`127.0.0.1:${port}`);

    const redis = await startOwnedRedis(port);
    cleanups.push(() => redis.stop());
    await waitFor(
      succeeds(() => store.get('k')),
      { timeoutMs: 10_000 },
    );
    await waitFor(() => store.health().queued === 0, { timeoutMs: 5000 });
    expect(await store.range('ledger')).toEqual([{ id: 'queued-1', time: 1, data: { usd: 0.5 } }]);
    expect(store.health().ok).toBe(true);
    expect(backLines(lines)).toHaveLength(1);
    await waitFor(
      async () => {
        await store.publish('valves', 'changed');
        return heard.length > 0;
      },
      { timeoutMs: 5000, intervalMs: 50 },
    );
    expect(heard[0]).toBe('changed');
  });

  it('subscriptions made while Redis is up are made again after it restarts', async () => {
    const redis = await startOwnedRedis();
    cleanups.push(() => redis.stop());
    const { logger } = captureLogger();
    const store = new RedisStateStore({
      url: `${redis.url}/2`,
      prefix: `eunoe-fault:${randomUUID()}:`,
      timeoutMs: 300,
      queueMax: 100,
      logger,
    });
    cleanups.push(() => store.close());
    const heard: string[] = [];
    store.subscribe('valves', (message) => heard.push(message));
    const hears = (message: string) =>
      waitFor(
        async () => {
          await store.publish('valves', message).catch(() => undefined);
          return heard.includes(message);
        },
        { timeoutMs: 10_000, intervalMs: 50 },
      );
    await hears('before');
    await redis.stop();
    await redis.start();
    await hears('after');
  });

  it('Redis that stops answering (CLIENT PAUSE): calls time out as unavailable, appends queue and land once', async () => {
    const redis = await startOwnedRedis();
    cleanups.push(() => redis.stop());
    const { logger } = captureLogger();
    const store = new RedisStateStore({
      url: redis.url,
      prefix: 'eunoe-fault:',
      logger,
      timeoutMs: 200,
      queueMax: 100,
      flushRetryMs: 100,
    });
    cleanups.push(() => store.close());
    expect(await store.waitUntilReady(5000)).toBe(true);
    const admin = new Redis(redis.url);
    cleanups.push(() => admin.disconnect());
    await admin.client('PAUSE', 1500, 'ALL');

    await expect(within(store.get('k'), 1000)).rejects.toBeInstanceOf(StateUnavailableError);
    expect(await within(store.append('ledger', { id: 'slow-1', time: 1, data: {} }), 1000)).toBe(true);
    expect(await within(store.append('ledger', { id: 'slow-2', time: 2, data: {} }), 1000)).toBe(true);
    expect(store.health().queued).toBe(2);

    await waitFor(() => store.health().queued === 0, { timeoutMs: 10_000 });
    expect((await store.range('ledger')).map((record) => record.id)).toEqual(['slow-1', 'slow-2']);
  });

  it('close() while Redis is away reports the queued ledger writes it could not deliver', async () => {
    const { logger, lines } = captureLogger();
    const store = new RedisStateStore({
      url: `redis://127.0.0.1:${await freePort()}`,
      prefix: 'eunoe-fault:',
      logger,
      timeoutMs: 200,
      queueMax: 10,
    });
    await store.append('ledger', { id: 'a', time: 1, data: {} });
    await store.append('ledger', { id: 'b', time: 2, data: {} });
    await within(store.close(), 3000);
    const lost = lines.find((line) => line.msg.includes('could not reach Redis before shutdown'));
    expect(lost).toMatchObject({ lost: 2, ids: ['ledger/a', 'ledger/b'] });
  });

  it('bounds the ledger queue: refuses past LEDGER_QUEUE_MAX with one loud log, keeps the accepted ones', async () => {
    const port = await freePort();
    const { logger, lines } = captureLogger();
    const store = new RedisStateStore({
      url: `redis://127.0.0.1:${port}`,
      prefix: 'eunoe-fault:',
      logger,
      timeoutMs: 300,
      queueMax: 5,
      maxRetryDelayMs: 200,
    });
    cleanups.push(() => store.close());
    for (let index = 0; index < 5; index++)
      expect(await store.append('ledger', { id: `r${index}`, time: index, data: {} })).toBe(true);
    for (let index = 5; index < 8; index++) {
      await expect(store.append('ledger', { id: `r${index}`, time: index, data: {} })).rejects.toBeInstanceOf(
        StateUnavailableError,
      );
    }
    expect(store.health().queued).toBe(5);
    expect(lines.filter((line) => line.msg.includes('LEDGER QUEUE FULL'))).toHaveLength(1);

    const redis = await startOwnedRedis(port);
    cleanups.push(() => redis.stop());
    await waitFor(() => store.health().queued === 0, { timeoutMs: 10_000 });
    expect((await store.range('ledger')).map((record) => record.id)).toEqual(['r0', 'r1', 'r2', 'r3', 'r4']);
    expect(lines.find((line) => line.msg.includes('3 ledger writes were dropped'))).toBeDefined();
  });

  it('Redis killed in the middle of ledger writes: no call hangs, every accepted write lands exactly once', async () => {
    const { dir, remove } = tempDir('eunoe-redis-aof-');
    const redis: OwnedRedis = await startOwnedRedis(undefined, { persistDir: dir });
    cleanups.push(remove, () => redis.stop());
    const { logger, lines } = captureLogger();
    const store = new RedisStateStore({
      url: redis.url,
      prefix: 'eunoe-fault:',
      logger,
      timeoutMs: 300,
      queueMax: 10_000,
      maxRetryDelayMs: 200,
    });
    cleanups.push(() => store.close());
    expect(await store.waitUntilReady(5000)).toBe(true);

    const accepted: string[] = [];
    const refused: string[] = [];
    let maxQueued = 0;
    let running = true;
    const writer = async (name: string) => {
      for (let index = 0; running; index++) {
        const id = `${name}-${index}`;
        try {
          if (await within(store.append('ledger', { id, time: Date.now(), data: { name, index } }), 3000))
            accepted.push(id);
        } catch (error) {
          if (!(error instanceof StateUnavailableError)) throw error;
          refused.push(id);
        }
        maxQueued = Math.max(maxQueued, store.health().queued ?? 0);
        await sleep(1);
      }
    };
    const writers = Promise.all(['a', 'b', 'c', 'd'].map(writer));

    await waitFor(() => accepted.length >= 200, { timeoutMs: 10_000 });
    await redis.stop(); // SIGKILL while appends are in flight
    await expect(within(store.get('anything'), 2000)).rejects.toBeInstanceOf(StateUnavailableError);
    await waitFor(() => (store.health().queued ?? 0) >= 100, { timeoutMs: 10_000 });
    await redis.start(); // same port, same append-only file
    const afterRestart = accepted.length;
    await waitFor(() => accepted.length >= afterRestart + 200 && store.health().queued === 0, { timeoutMs: 15_000 });
    running = false;
    await writers;
    await waitFor(() => store.health().queued === 0, { timeoutMs: 10_000 });

    const stored = (await store.range('ledger')).map((record) => record.id);
    expect(refused).toEqual([]);
    expect(maxQueued).toBeGreaterThanOrEqual(100);
    expect(stored).toHaveLength(accepted.length);
    expect(new Set(stored)).toEqual(new Set(accepted));
    expect(unavailableLines(lines)).toHaveLength(1);
    expect(backLines(lines)).toHaveLength(1);
  });
});
