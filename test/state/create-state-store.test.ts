import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Redis } from 'ioredis';
import { describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/core/config.js';
import { createStateStore } from '../../src/state/create-state-store.js';
import { deletePrefixedKeys } from '../../src/state/redis/delete-prefixed-keys.js';
import { silentLogger } from '../../src/core/util/logger.js';
import { tempDir } from '../helpers/temp-store.js';

const redisUrl = inject('redisUrl');

describe('createStateStore', () => {
  it('defaults to SQLite under DATA_DIR when REDIS_URL is unset', async () => {
    const { dir, remove } = tempDir();
    try {
      const config = loadConfig({ DATA_DIR: 'data' }, dir);
      const store = await createStateStore({ config, logger: silentLogger() });
      expect(store.backend).toBe('sqlite');
      expect(store.health().detail).toBe(path.join(dir, 'data', 'eunoe.db'));
      await store.close();
    } finally {
      remove();
    }
  });

  it.runIf(redisUrl)('chooses Redis when REDIS_URL is set and writes under REDIS_PREFIX', async () => {
    const prefix = `eunoe-test:${randomUUID()}:`;
    const store = await createStateStore({
      config: loadConfig({ REDIS_URL: redisUrl, REDIS_PREFIX: prefix }),
      logger: silentLogger(),
    });
    const admin = new Redis(redisUrl);
    try {
      expect(store.backend).toBe('redis');
      expect(store.health()).toMatchObject({ ok: true, queued: 0 });
      await store.set('valves:u1', { on: true });
      expect(await admin.get(`${prefix}d:valves:u1`)).toBe('{"on":true}');
    } finally {
      await store.close();
      await deletePrefixedKeys(admin, prefix);
      admin.disconnect();
    }
  });
});
