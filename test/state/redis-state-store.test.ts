import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { deletePrefixedKeys } from '../../src/state/redis/delete-prefixed-keys.js';
import { RedisStateStore } from '../../src/state/redis/redis-state-store.js';
import { silentLogger } from '../../src/core/util/logger.js';
import { realClock } from '../helpers/clock.js';
import { runStoreContract } from './contract.js';
import { sleep, waitFor } from '../helpers/wait-for.js';
import { usageRecord } from '../usage/helpers/usage-record.js';

const redisUrl = inject('redisUrl');
if (!redisUrl) {
  if (process.env.CI) throw new Error('No Redis for the Redis state suite under CI');
  console.warn('[state] Redis suite skipped: no Redis could be found or started (install redis-server)');
}
/** A fresh prefix per file run so parallel and repeated runs never collide; removed afterwards. */
const filePrefix = `eunoe-test:${randomUUID()}:`;
let storeCount = 0;

function makeRedisStore(prefix = `${filePrefix}${storeCount++}:`): RedisStateStore {
  return new RedisStateStore({ url: redisUrl, prefix, logger: silentLogger(), timeoutMs: 1000, queueMax: 1000 });
}

describe.runIf(redisUrl)('RedisStateStore', () => {
  afterAll(async () => {
    const admin = new Redis(redisUrl);
    await deletePrefixedKeys(admin, filePrefix);
    admin.disconnect();
  });

  runStoreContract(
    'redis',
    async () => {
      const store = makeRedisStore();
      await store.waitUntilReady(5000);
      return { store, dispose: () => store.close() };
    },
    realClock,
  ); // Redis expires keys by its own clock

  describe('several replicas on one Redis', () => {
    it('a second instance with the same prefix shares state and hears publishes', async () => {
      const prefix = `${filePrefix}replicas:`;
      const first = makeRedisStore(prefix);
      const second = makeRedisStore(prefix);
      try {
        await Promise.all([first.waitUntilReady(5000), second.waitUntilReady(5000)]);
        const heard: string[] = [];
        second.subscribe('valves', (message) => heard.push(message));
        await waitFor(
          async () => {
            await first.publish('valves', 'context');
            return heard.length > 0;
          },
          { timeoutMs: 5000, intervalMs: 25 },
        );
        expect(heard[0]).toBe('context');
        await first.set('valves:u1', { limit: 3 });
        expect(await second.get('valves:u1')).toEqual({ limit: 3 });
        await Promise.all(Array.from({ length: 50 }, (_, index) => (index % 2 ? first : second).increment('n')));
        expect(await first.get('n')).toBe(50);
      } finally {
        await Promise.all([first.close(), second.close()]);
      }
    });

    it('windowAdmit on two replicas: exactly `limit` of a burst pass, the window holds at most `limit` times, with a TTL', async () => {
      const prefix = `${filePrefix}window:`;
      const first = makeRedisStore(prefix);
      const second = makeRedisStore(prefix);
      const admin = new Redis(redisUrl);
      try {
        await Promise.all([first.waitUntilReady(5000), second.waitUntilReady(5000)]);
        const now = Date.parse('2026-12-05T10:02:59Z');
        const burst = await Promise.all(
          Array.from({ length: 30 }, (_, index) =>
            (index % 2 ? first : second).windowAdmit('rate:u', { limit: 4, windowMs: 60_000, now: now + index }),
          ),
        );
        expect(burst.filter((answer) => answer.admitted)).toHaveLength(4);
        // A lowered limit trims the set to the newest ones: never more than `limit` times per user.
        await first.windowAdmit('rate:u', { limit: 2, windowMs: 60_000, now: now + 100 });
        const key = `${prefix}w:rate:u`;
        expect(await admin.zcard(key)).toBe(2);
        const ttl = await admin.pttl(key);
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(60_000);
      } finally {
        await Promise.all([first.close(), second.close()]);
        admin.disconnect();
      }
    });

    it('keeps deployments with different prefixes apart and stores every key under the prefix', async () => {
      const one = makeRedisStore(`${filePrefix}one:`);
      const two = makeRedisStore(`${filePrefix}two:`);
      const admin = new Redis(redisUrl);
      try {
        await Promise.all([one.waitUntilReady(5000), two.waitUntilReady(5000)]);
        await one.set('k', 1);
        await one.append('ledger', { id: 'a', time: 1, data: {} });
        await one.acquireLease('job', 10_000);
        expect(await two.get('k')).toBeUndefined();
        expect(await two.range('ledger')).toEqual([]);
        expect(await two.acquireLease('job', 10_000)).toBeDefined();
        const raw = await admin.keys(`${filePrefix}one:*`);
        expect(raw.length).toBeGreaterThanOrEqual(4);
        expect(raw.every((key) => key.startsWith(`${filePrefix}one:`))).toBe(true);
      } finally {
        admin.disconnect();
        await Promise.all([one.close(), two.close()]);
      }
    });
  });

  it('keeps the single-node key names earlier versions wrote (no hash tags), so a deployment keeps its data', async () => {
    const prefix = `${filePrefix}layout:`;
    const store = makeRedisStore(prefix);
    const admin = new Redis(redisUrl);
    try {
      await store.waitUntilReady(5000);
      await store.set('valves:u1', { limit: 3 });
      await store.append('notes', { id: 'n1', time: 1, data: {} });
      await store.usage.record(usageRecord({ messageId: 'm1', userId: 'u1', cost: '0.5' }));
      await store.usage.holds.reserve({
        userId: 'u1',
        id: 'h1',
        amount: '0.1',
        now: Date.now(),
        expiresAt: Date.now() + 60_000,
        caps: [],
      });
      const names = (await admin.keys(`${prefix}*`)).map((key) => key.slice(prefix.length)).sort();
      expect(names).toEqual(
        [
          'd:valves:u1',
          's:notes:h',
          's:notes:n',
          's:notes:z',
          's:ledger:h',
          's:ledger:n',
          's:ledger:z',
          's:ledger:user:u1:h',
          's:ledger:user:u1:z',
          'u:day-from',
          'u:day:2026-11-05',
          'u:hold-exp:u1',
          'u:hold:u1',
          'u:spend-from',
          'u:spend:u1',
        ].sort(),
      );
      // And data written under those names by hand (as an earlier version left it) is read back.
      await admin.set(`${prefix}d:flags:chat-1`, JSON.stringify({ recent: 9 }));
      await admin.hset(`${prefix}u:spend:u2`, 'm:2026-11:hi', '1250000000', 'm:2026-11:lo', '7');
      expect(await store.get('flags:chat-1')).toEqual({ recent: 9 });
      expect(await store.usage.spent('u2', 'm:2026-11')).toBe('1.250000000000000007');
    } finally {
      admin.disconnect();
      await store.close();
    }
  });

  it('connects again when the client ends without the store being closed (ioredis giving up mid-failover)', async () => {
    const store = makeRedisStore();
    try {
      await store.waitUntilReady(5000);
      await store.set('before', 1);
      store.client.disconnect(); // status 'end', as when ioredis stops reconnecting by itself
      const seen = new Set<string>();
      await waitFor(
        () => {
          seen.add(store.client.status);
          return seen.has('end') && store.client.status === 'ready';
        },
        { timeoutMs: 10_000, intervalMs: 1 },
      );
      expect(await store.get('before')).toBe(1);
    } finally {
      await store.close();
    }
    // Closed for good stays closed: past the first reconnect delay (≤ 100 ms) nothing connects again.
    await waitFor(() => store.client.status === 'end', { timeoutMs: 5000 });
    await sleep(500);
    expect(store.client.status).toBe('end');
  });
});
