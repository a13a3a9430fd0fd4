import { describe, expect, it } from 'vitest';
import { realClock } from '../helpers/clock.js';
import {
  canStartRedisTopologies,
  startRedisSentinel,
  topologyStore,
  useLocalTopology,
} from '../helpers/redis-topologies.js';
import { waitFor } from '../helpers/wait-for.js';
import { dailyContract } from '../dashboard/daily-contract.js';
import { runSpendHoldsContract } from '../usage/spend-holds-contract.js';
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
});
