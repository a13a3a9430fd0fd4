import type { Redis } from 'ioredis';
import { escapeGlob } from './redis-keys.js';

/** Remove every key that starts with `prefix` (test and benchmark clean-up; never on a hot path). Returns how many. */
export async function deletePrefixedKeys(client: Redis, prefix: string): Promise<number> {
  if (prefix.length === 0) throw new Error('deletePrefixedKeys refuses an empty prefix');
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${escapeGlob(prefix)}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) deleted += await client.unlink(...keys);
  } while (cursor !== '0');
  return deleted;
}
