import { describe, expect, it } from 'vitest';
import { add, formatDecimal, parseDecimal } from '../../src/domain/pricing/decimal.js';
import type { RedisStateStore } from '../../src/state/redis/redis-state-store.js';
import {
  canStartRedisTopologies,
  startRedisCluster,
  topologyStore,
  useLocalTopology,
} from '../helpers/redis-topologies.js';
import { errorMessage } from '../../src/core/util/error-message.js';
import { redisCommand } from '../../bench/lib/redis-topologies.js';
import { waitFor } from '../helpers/wait-for.js';
import { usageRecord } from '../usage/helpers/usage-record.js';

// Three primaries, each with a replica (cluster-node-timeout 1000 ms), all requiring a password.
describe.runIf(canStartRedisTopologies('Redis Cluster'))('on a Redis Cluster with replicas, a failover', () => {
  const cluster = useLocalTopology(() =>
    startRedisCluster({ password: 'cluster-secret', replicas: true, nodeTimeoutMs: 1000 }),
  );

  it('kill -9 of a primary under load from two stores: no accepted record lost, documents intact, totals exact', async () => {
    const prefix = `eunoe-cluster-failover-${Date.now()}:`;
    const stores = await Promise.all([0, 1].map(() => topologyStore(cluster(), { prefix, timeoutMs: 500 })));
    let running = true;
    try {
      const [a, b] = stores as [RedisStateStore, RedisStateStore];
      // Documents over many users, so some live on the primary that is killed.
      for (let user = 0; user < 12; user++) await a.set(`valves:u${user}`, { user });

      const accepted = new Map<string, { userId: string; cost: string }>();
      let refused = 0;
      const reasons = new Set<string>();
      let sequence = 0;
      const loop = async (store: RedisStateStore, name: string) => {
        while (running) {
          const n = sequence++;
          const record = usageRecord({ messageId: `${name}-${n}`, userId: `u${n % 12}`, cost: String((n + 1) / 1e6) });
          const ok = await store.usage!.record(record).catch((error: unknown) => {
            reasons.add(errorMessage(error));
            return false;
          });
          if (ok) accepted.set(record.messageId, { userId: record.userId, cost: String((n + 1) / 1e6) });
          else {
            refused += 1;
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        }
      };
      const loops = [loop(a, 'a'), loop(b, 'b')];
      await waitFor(() => accepted.size >= 50, { timeoutMs: 30_000 });

      const killedAt = Date.now();
      const beforeKill = accepted.size;
      await cluster().nodes[0]!.kill();
      // The killed primary's replica takes over its slots once the others agree it is down.
      const replica = cluster().replicas![0]!;
      await waitFor(async () => (await redisCommand(replica.port, 'ROLE', 1000, 'cluster-secret')).includes('master'), {
        timeoutMs: 60_000,
        intervalMs: 50,
      });
      // Writes resume when both stores are ok again with nothing left in their journals.
      await waitFor(() => stores.map((store) => store.health()), {
        until: (healths) => healths.every((health) => health.ok && health.queued === 0),
        timeoutMs: 60_000, // a liveness bound: on a loaded machine the replicas' election can take a few rounds
        intervalMs: 50,
      });
      const resumedMs = Date.now() - killedAt;
      const atResume = accepted.size;
      await waitFor(() => accepted.size >= atResume + 50, { timeoutMs: 30_000 });
      running = false;
      await Promise.all(loops);
      await waitFor(() => stores.every((store) => store.health().queued === 0), { timeoutMs: 30_000 });
      console.log(
        `[cluster failover] kill -9 of a primary: writes resumed after ${resumedMs} ms (cluster-node-timeout 1000 ms); ` +
          `${accepted.size} records accepted (${beforeKill} before the kill, ${atResume - beforeKill} during, ` +
          `${accepted.size - atResume} after), ${refused} refused ${[...reasons].join('; ')}`,
      );
      expect(refused).toBe(0);
      // Ledger writes were confirmed on a replica (WAIT) on the primaries that kept theirs.
      const waits = await Promise.all(
        cluster()
          .nodes.slice(1)
          .map(async (node) => {
            const stats = await redisCommand(node.port, 'INFO commandstats', 2000, 'cluster-secret');
            return Number(/cmdstat_wait:calls=(\d+)/.exec(stats)?.[1] ?? '0');
          }),
      );
      expect(waits.reduce((total, calls) => total + calls, 0)).toBeGreaterThan(0);

      // Every accepted record is there once, and the totals and spend counters are exact sums.
      const sum = (costs: string[]) => formatDecimal(add(...costs.map((cost) => parseDecimal(cost) ?? 0n)));
      const summary = await b.usage!.summarize({});
      expect(summary.totals.records).toBe(accepted.size);
      expect(summary.totals.cost).toBe(sum([...accepted.values()].map((entry) => entry.cost)));
      for (let user = 0; user < 12; user++) {
        const costs = [...accepted.values()].filter((entry) => entry.userId === `u${user}`).map((entry) => entry.cost);
        expect(await b.usage!.spent(`u${user}`, 'm:2026-11')).toBe(sum(costs));
        expect(await b.get(`valves:u${user}`)).toEqual({ user });
      }
    } finally {
      running = false;
      await Promise.all(stores.map((store) => store.close()));
    }
  }, 120_000);
});
