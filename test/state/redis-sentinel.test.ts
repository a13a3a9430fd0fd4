import { describe, expect, it, vi } from 'vitest';
import { realClock } from '../helpers/clock.js';
import {
  canStartRedisTopologies,
  startRedisSentinel,
  topologyStore,
  useLocalTopology,
} from '../helpers/redis-topologies.js';
import { waitFor } from '../helpers/wait-for.js';
import { freePort } from '../helpers/redis-server.js';
import { dailyContract } from '../dashboard/daily-contract.js';
import { runSpendHoldsContract } from '../usage/spend-holds-contract.js';
import { runScopeHoldsContract } from '../usage/scope-holds-contract.js';
import { runUsageStoreContract } from '../usage/usage-store-contract.js';
import { usageRecord } from '../usage/helpers/usage-record.js';
import { runStoreContract } from './contract.js';
import { redisCommand } from '../../bench/lib/redis-topologies.js';

// One primary, one replica, three sentinels for the whole file, all requiring passwords: the data nodes
// (requirepass, masterauth; `sentinel auth-pass`) and the sentinels themselves (requirepass). The kill -9 failover
// test has its own set-up in redis-sentinel-failover.test.ts, so the two files run side by side.
describe.runIf(canStartRedisTopologies('Redis Sentinel'))('behind Redis Sentinel with passwords', () => {
  const sentinel = useLocalTopology(() =>
    startRedisSentinel({ password: 'data-secret', sentinelPassword: 'sentinel-secret' }),
  );
  const open = async () => {
    const store = await topologyStore(sentinel());
    return { store, dispose: () => store.close() };
  };

  runStoreContract('redis sentinel', open, realClock);
  runUsageStoreContract('redis sentinel', open);
  runSpendHoldsContract('redis sentinel', open);
  runScopeHoldsContract('redis sentinel', open);
  dailyContract('redis sentinel', open);

  it('reports the topology and the primary in use; the nodes and sentinels do require their passwords', async () => {
    const store = await topologyStore(sentinel());
    try {
      expect(store.health()).toMatchObject({
        ok: true,
        topology: { kind: 'sentinel', primary: `127.0.0.1:${sentinel().nodes[0]!.port}` },
      });
      // What the store was given through REDIS_PASSWORD and REDIS_SENTINEL_PASSWORD is needed.
      expect(await redisCommand(sentinel().nodes[0]!.port, 'DBSIZE')).toMatch(/^-NOAUTH/);
      expect(await redisCommand(sentinel().sentinels[0]!.port, 'SENTINEL MASTERS')).toMatch(/^-NOAUTH/);
      expect(sentinel().env).toMatchObject({
        REDIS_PASSWORD: 'data-secret',
        REDIS_SENTINEL_PASSWORD: 'sentinel-secret',
      });
    } finally {
      await store.close();
    }
  });

  it('a ledger write counts as landed once the replica has it: with the replica stalled it waits in the journal', async () => {
    const store = await topologyStore(sentinel(), { timeoutMs: 400 });
    const replica = sentinel().nodes[1]!;
    try {
      const usage = store.usage;
      expect(await usage.record(usageRecord({ messageId: 'w0', cost: '0.1' }))).toBe(true);
      expect(store.health().queued).toBe(0);
      replica.pause();
      // Written on the primary, but no replica acknowledges it: accepted into the journal, not yet landed.
      expect(await usage.record(usageRecord({ messageId: 'w1', cost: '0.2' }))).toBe(true);
      expect(store.health()).toMatchObject({ ok: false, queued: 1 });
      replica.resume();
      await waitFor(() => store.health().queued === 0, { timeoutMs: 15_000 });
      // Replayed until the replica had it, and counted once.
      expect(await usage.spent('u1', 'm:2026-11')).toBe('0.3');
      expect((await usage.summarize({ userId: 'u1' })).totals).toMatchObject({ records: 2, cost: '0.3' });
    } finally {
      replica.resume();
      await store.close();
    }
  });

  it('a sentinel that is down (one of the list) changes nothing: the store works, and no raw ioredis error line is printed', async () => {
    const printed = vi.spyOn(console, 'error');
    const down = await freePort(); // nothing listens there
    const env = { ...sentinel().env, REDIS_SENTINELS: `${sentinel().env.REDIS_SENTINELS},127.0.0.1:${down}` };
    const store = await topologyStore({ ...sentinel(), env });
    try {
      store.subscribe('news', () => {}); // a second connection, with a failover detector of its own
      await store.set('k', 1);
      expect(await store.get('k')).toBe(1);
      // Each connection's failover detector has connected to every sentinel in the list by now (or failed to).
      await new Promise((resolve) => setTimeout(resolve, 500));
      const lines = printed.mock.calls.map((call) => call.map(String).join(' '));
      expect(lines.filter((line) => line.includes('[ioredis]'))).toEqual([]);
    } finally {
      printed.mockRestore();
      await store.close();
    }
  });

  it("a closed store leaves no connection open to the sentinels (its failover detectors' included)", async () => {
    const listeners = async () => {
      let count = 0;
      for (const node of sentinel().sentinels) {
        const clients = await redisCommand(node.port, 'CLIENT LIST', 1000, 'sentinel-secret');
        count += (clients.match(/cmd=subscribe/g) ?? []).length; // a detector subscribes to +switch-master
      }
      return count;
    };
    // Stores closed by the tests before this one may still be letting go of their connections: start from a count
    // that holds still for half a second.
    let before = -1;
    await waitFor(
      async () => {
        const first = await listeners();
        await new Promise((resolve) => setTimeout(resolve, 500));
        before = await listeners();
        return before === first;
      },
      { timeoutMs: 15_000 },
    );
    const store = await topologyStore(sentinel());
    store.subscribe('news', () => {});
    await store.set('k', 1);
    await waitFor(async () => (await listeners()) >= before + 3, { timeoutMs: 5000 }); // one per sentinel at least
    await store.close();
    await waitFor(async () => (await listeners()) === before, { timeoutMs: 10_000 });
  });
});
