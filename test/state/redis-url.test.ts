import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { StateUnavailableError } from '../../src/core/errors/index.js';
import { redactRedisUrl } from '../../src/state/redis/redis-topology.js';
import { RedisStateStore } from '../../src/state/redis/redis-state-store.js';
import { redisServerBinary, startOwnedRedis, type OwnedRedis } from '../helpers/redis-server.js';
import { captureLogger } from './helpers/capture-logger.js';

const canRun = Boolean(inject('redisUrl')) && redisServerBinary() !== undefined;
if (!canRun) {
  if (process.env.CI) throw new Error('redis-server is needed for the Redis URL tests under CI');
  console.warn('[state] Redis URL tests skipped: redis-server is not installed');
}

describe('redactRedisUrl', () => {
  it('hides the password and keeps the rest', () => {
    expect(redactRedisUrl('rediss://user:hunter2@cache.example:6380/4')).toBe('rediss://user:***@cache.example:6380/4');
    expect(redactRedisUrl('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379');
  });
});

describe.runIf(canRun)('REDIS_URL with password and database index', () => {
  let redis: OwnedRedis;
  beforeAll(async () => {
    redis = await startOwnedRedis();
    const admin = new Redis(redis.url);
    await admin.config('SET', 'requirepass', 'hunter2');
    admin.disconnect();
  });
  afterAll(() => redis.stop());

  it('authenticates and writes into the chosen database', async () => {
    const store = new RedisStateStore({
      url: `redis://:hunter2@127.0.0.1:${redis.port}/3`,
      prefix: 'p:',
      logger: captureLogger().logger,
      timeoutMs: 500,
      queueMax: 10,
    });
    const admin = new Redis(`redis://:hunter2@127.0.0.1:${redis.port}/3`);
    try {
      expect(await store.waitUntilReady(5000)).toBe(true);
      await store.set('k', [1, 2]);
      expect(await admin.get('p:d:k')).toBe('[1,2]');
      await admin.select(0);
      expect(await admin.get('p:d:k')).toBeNull();
    } finally {
      admin.disconnect();
      await store.close();
    }
  });

  it('with a wrong password: fails fast as unavailable and never logs the password', async () => {
    const { logger, lines } = captureLogger();
    const store = new RedisStateStore({
      url: `redis://:wrong-secret@127.0.0.1:${redis.port}/3`,
      prefix: 'p:',
      logger,
      timeoutMs: 300,
      queueMax: 10,
    });
    try {
      expect(await store.waitUntilReady(1000)).toBe(false);
      await expect(store.get('k')).rejects.toBeInstanceOf(StateUnavailableError);
      const logged = JSON.stringify(lines);
      expect(lines.filter((line) => line.msg.includes('is unavailable'))).toHaveLength(1);
      expect(logged).not.toContain('wrong-secret');
      expect(logged).toContain('***');
    } finally {
      await store.close();
    }
  });
});
