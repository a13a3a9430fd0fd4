import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { silentLogger } from '../../src/core/util/logger.js';
import { RedisStateStore } from '../../src/state/redis/redis-state-store.js';
import { redisTopology } from '../../src/state/redis/redis-topology.js';
import { startRedisCluster, startRedisSentinel, type LocalTopology } from '../../bench/lib/redis-topologies.js';
import { redisServerBinary } from './redis-server.js';

export { startRedisCluster, startRedisSentinel, type LocalTopology };

/** True when redis-server is installed; under CI a missing one throws instead (CI must run these suites). */
export function canStartRedisTopologies(what: string): boolean {
  if (redisServerBinary()) return true;
  if (process.env.CI) throw new Error(`redis-server is needed for the ${what} tests under CI`);
  console.warn(`[state] ${what} tests skipped: redis-server is not installed`);
  return false;
}

/**
 * One Cluster or Sentinel set-up for a whole test file: started in beforeAll, stopped in afterAll (and killed by
 * the helper's exit hook should the run end otherwise). `topology()` returns it once started.
 */
export function useLocalTopology(start: () => Promise<LocalTopology>): () => LocalTopology {
  let started: LocalTopology | undefined;
  beforeAll(async () => {
    started = await start();
  }, 60_000);
  afterAll(async () => {
    await started?.stop();
  });
  return () => {
    if (!started) throw new Error('the Redis topology did not start');
    return started;
  };
}

/** A Redis store over the topology under a fresh prefix, connected before it is returned. */
export async function topologyStore(
  topology: LocalTopology,
  options: { prefix?: string; timeoutMs?: number } = {},
): Promise<RedisStateStore> {
  const store = new RedisStateStore({
    topology: redisTopology(topology.env)!,
    prefix: options.prefix ?? `eunoe-test:${randomUUID()}:`,
    logger: silentLogger(),
    timeoutMs: options.timeoutMs ?? 2000,
    queueMax: 1000,
  });
  if (!(await store.waitUntilReady(10_000))) throw new Error('the store did not connect to the topology');
  return store;
}
