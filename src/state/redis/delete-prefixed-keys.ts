import { Cluster, type Redis } from 'ioredis';
import type { RedisClient } from './create-redis-client.js';
import { escapeGlob } from './redis-keys.js';

/** Every key matching `pattern` on every primary (SCAN reaches one node; on a Cluster each primary holds its slots). */
export async function scanKeys(client: RedisClient, pattern: string): Promise<string[]> {
  const nodes: Redis[] = client instanceof Cluster ? client.nodes('master') : [client];
  const found: string[] = [];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      found.push(...keys);
    } while (cursor !== '0');
  }
  return found;
}

/** Remove every key that starts with `prefix` (test and benchmark clean-up; never on a hot path). Returns how many. */
export async function deletePrefixedKeys(client: RedisClient, prefix: string): Promise<number> {
  if (prefix.length === 0) throw new Error('deletePrefixedKeys refuses an empty prefix');
  const keys = await scanKeys(client, `${escapeGlob(prefix)}*`);
  // One key per UNLINK: on a Cluster the keys of one call must share a slot.
  const counts = await Promise.all(keys.map((key) => client.unlink(key)));
  return counts.reduce((sum, count) => sum + count, 0);
}
