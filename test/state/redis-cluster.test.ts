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

  it("two replicas on the Cluster: 32 concurrent holds of 8 members end within their group's cap, recorded replies count", async () => {
    const prefix = `eunoe-test:${randomUUID()}:`;
    const replicas = [await topologyStore(cluster(), { prefix }), await topologyStore(cluster(), { prefix })];
    try {
      const now = Date.UTC(2026, 10, 5, 12);
      // A group's $0.03 day (docs/accounting.md's group budgets, scaled down): $0.0073 per request, 4 fit.
      const caps = [{ period: 'd:2026-11-05', limit: '0.03', scope: 'g:Research' }];
      const outcomes = await Promise.all(
        Array.from({ length: 32 }, (_, index) =>
          replicas[index % 2]!.usage.holds.reserve({
            userId: `member-${index % 8}`,
            id: `m${index}`,
            amount: '0.0073',
            caps,
            now,
            expiresAt: now + 60_000,
          }),
        ),
      );
      const admitted = outcomes.flatMap((outcome, index) => (outcome.admitted ? [index] : []));
      expect(admitted).toHaveLength(4);
      // Each admitted reply is recorded on the other replica (the group on the record), and releases its hold.
      for (const index of admitted) {
        const userId = `member-${index % 8}`;
        const other = replicas[(index + 1) % 2]!;
        await other.usage.record(
          usageRecord({ messageId: `m${index}`, userId, cost: '0.0075', time: now, scopes: ['g:Research'] }),
        );
        expect(await other.usage.holds.release(userId, [`m${index}`])).toBe(1);
      }
      expect(await replicas[0]!.usage.scopeSpent('g:Research', 'd:2026-11-05')).toBe('0.03');
      const probe = { userId: 'member-new', id: 'probe', amount: '0', caps, now, expiresAt: now + 60_000 };
      expect(await replicas[1]!.usage.holds.reserve(probe)).toMatchObject({ admitted: false, scopeHeld: ['0'] });
    } finally {
      await Promise.all(replicas.map((replica) => replica.close()));
    }
  });

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
