import { randomUUID } from 'node:crypto';
import type { Cluster } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { realClock } from '../helpers/clock.js';
import {
  canStartRedisTopologies,
  startRedisCluster,
  topologyStore,
  useLocalTopology,
} from '../helpers/redis-topologies.js';
import { dailyContract } from '../dashboard/daily-contract.js';
import { runSpendHoldsContract } from '../usage/spend-holds-contract.js';
import { runScopeHoldsContract } from '../usage/scope-holds-contract.js';
import { runUsageStoreContract } from '../usage/usage-store-contract.js';
import { usageRecord } from '../usage/helpers/usage-record.js';
import { runStoreContract } from './contract.js';
import { redisCommand } from '../../bench/lib/redis-topologies.js';

describe.runIf(canStartRedisTopologies('Redis Cluster'))('on a three-primary Redis Cluster with a password', () => {
  // Every node requires a password: the store's connections (data, subscriber, slot map) must all pass it on.
  const cluster = useLocalTopology(() => startRedisCluster({ password: 'cluster-secret' }));
  const open = async () => {
    const store = await topologyStore(cluster());
    return { store, dispose: () => store.close() };
  };

  runStoreContract('redis cluster', open, realClock);
  runUsageStoreContract('redis cluster', open);
  runSpendHoldsContract('redis cluster', open);
  runScopeHoldsContract('redis cluster', open);
  dailyContract('redis cluster', open);

  it('spreads the state over the three primaries and reports the topology', async () => {
    const prefix = `eunoe-test:${randomUUID()}:`;
    const store = await topologyStore(cluster(), { prefix });
    const admin = store.client as Cluster;
    try {
      for (let index = 0; index < 30; index++) {
        await store.set(`valves:u${index}`, { index });
        await store.usage.record(usageRecord({ messageId: `m${index}`, userId: `u${index}`, cost: '0.01' }));
      }
      const perNode = await Promise.all(
        admin.nodes('master').map(async (node) => (await node.keys(`${prefix}*`)).length),
      );
      expect(perNode).toHaveLength(3);
      expect(perNode.every((count) => count > 0)).toBe(true);
      expect(await store.keys('valves:')).toHaveLength(30);
      expect(store.health()).toMatchObject({ ok: true, topology: { kind: 'cluster', primaries: 3 } });
      // The nodes do require the password the store was given through REDIS_PASSWORD.
      expect(await redisCommand(cluster().nodes[0]!.port, 'DBSIZE')).toMatch(/^-NOAUTH/);
    } finally {
      await store.close();
    }
  });
});
