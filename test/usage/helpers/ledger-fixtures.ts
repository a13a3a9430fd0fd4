import { Redis } from 'ioredis';
import { deletePrefixedKeys } from '../../../src/state/redis/delete-prefixed-keys.js';
import { redisKeys } from '../../../src/state/redis/redis-keys.js';
import { appendScript } from '../../../src/state/redis/redis-scripts.js';
import { RedisStateStore } from '../../../src/state/redis/redis-state-store.js';
import type { StateStore } from '../../../src/state/types.js';
import type { UsageRecord } from '../../../src/domain/usage/types.js';
import { silentLogger } from '../../../src/core/util/logger.js';
import { tempSqliteStore } from '../../helpers/temp-store.js';

/** A store to run a usage contract against, and how to get rid of it. */
export interface UsageBackend {
  store: StateStore;
  dispose: () => Promise<void>;
}

/** A real SQLite store in its own temp directory (removed by `dispose`). */
export function sqliteBackend(label: string): () => Promise<UsageBackend> {
  return () => tempSqliteStore(label);
}

/** One Redis replica on `prefix` (several on one prefix share a ledger), connected before it is returned. */
export async function redisReplica(url: string, prefix: string): Promise<RedisStateStore> {
  const store = new RedisStateStore({ url, prefix, logger: silentLogger(), timeoutMs: 2000, queueMax: 1000 });
  await store.waitUntilReady(5000);
  return store;
}

/** A fresh Redis store per call, each under its own prefix below `prefix`. */
export function redisBackend(url: string, prefix: string): () => Promise<UsageBackend> {
  let count = 0;
  return async () => {
    const store = await redisReplica(url, `${prefix}${count++}:`);
    return { store, dispose: () => store.close() };
  };
}

/** Delete every key under `prefix` (a test file's clean-up). */
export async function deleteRedisPrefix(url: string, prefix: string): Promise<void> {
  const admin = new Redis(url);
  try {
    await deletePrefixedKeys(admin, prefix);
  } finally {
    admin.disconnect();
  }
}

/**
 * Write records as an older Eunoe wrote them to Redis: into the global `ledger` stream and the
 * user's `ledger:user:<id>` stream only, with no spend counters and no daily aggregates, so a
 * test can check what the first start of the new version adds.
 */
export async function writeOlderRedisLedger(url: string, prefix: string, records: UsageRecord[]): Promise<void> {
  const layout = redisKeys(prefix);
  const admin = new Redis(url);
  try {
    for (const record of records) {
      for (const stream of ['ledger', `ledger:user:${record.userId}`]) {
        await appendScript.run(
          admin,
          [layout.streamHash(stream), layout.streamIndex(stream), layout.streamSequence(stream)],
          [record.messageId, record.time, JSON.stringify(record)],
        );
      }
    }
  } finally {
    admin.disconnect();
  }
}

/** One raw entry in the `ledger` stream as an older Eunoe kept it (`data` as given: a damaged record, say). */
export async function writeOlderRawEntry(url: string, prefix: string, id: string, data: string): Promise<void> {
  const layout = redisKeys(prefix);
  const admin = new Redis(url);
  try {
    await appendScript.run(
      admin,
      [layout.streamHash('ledger'), layout.streamIndex('ledger'), layout.streamSequence('ledger')],
      [id, Date.UTC(2026, 10, 6), data],
    );
  } finally {
    admin.disconnect();
  }
}
