import path from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { serverEnv } from '../../bench/lib/server-env.js';
import { redisAnswers } from '../helpers/redis-server.js';
import { serverCaller } from '../helpers/server-calls.js';
import { startServerProcess } from '../helpers/server-process.js';
import { tempDir } from '../helpers/temp-store.js';

/**
 * The suite keeps to itself: its Redis is a redis-server it started on a free port (or EUNOE_TEST_REDIS_URL), never
 * whatever answers on 127.0.0.1:6379, and the servers it starts get none of the Eunoe settings of the shell that ran
 * it (a REDIS_URL there would turn their SQLite into that Redis).
 */
const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('the test environment', () => {
  it("the suite's Redis is its own (or EUNOE_TEST_REDIS_URL), not the one on 6379", async () => {
    const url = inject('redisUrl');
    const named = process.env.EUNOE_TEST_REDIS_URL;
    if (named) {
      expect(url).toBe(named);
      return;
    }
    const { hostname, port } = new URL(url);
    expect(hostname).toBe('127.0.0.1');
    expect(port).not.toBe('6379');
    expect(await redisAnswers(hostname, Number(port))).toBe(true);
  });

  it('a server gets the environment without Eunoe settings, then what the test passes', () => {
    const shell = {
      PATH: '/usr/bin',
      HOME: '/root',
      REDIS_URL: 'redis://127.0.0.1:6379',
      REDIS_SENTINELS: 'a:26379',
      DATA_DIR: '/srv/eunoe',
      SQLITE_PATH: '/srv/eunoe.db',
      PIPELINES_API_KEY: 'the-real-key',
    };
    expect(serverEnv({ PORT: '9400', DATA_DIR: '/tmp/d' }, shell)).toEqual({
      PATH: '/usr/bin',
      HOME: '/root',
      PORT: '9400',
      DATA_DIR: '/tmp/d',
    });
  });

  it('a server process started with a REDIS_URL in the environment runs on the SQLite it was given', async () => {
    const { dir, remove } = tempDir('eunoe-test-env-');
    cleanups.push(remove);
    const key = 'test-env-key-0123456789';
    const server = await startServerProcess(
      { DATA_DIR: path.join(dir, 'data'), PIPELINES_API_KEY: key },
      // Nothing answers on port 1: a server that took this REDIS_URL would report a Redis it cannot reach.
      { inherit: { ...process.env, REDIS_URL: 'redis://127.0.0.1:1', SQLITE_PATH: path.join(dir, 'elsewhere.db') } },
    );
    cleanups.push(() => server.stop());
    const health = await serverCaller(key)(server, 'GET', '/health');
    expect(health.status).toBe(200);
    expect(health.body.store).toMatchObject({ backend: 'sqlite', ok: true });
    expect(health.body.store.detail).toBe(path.join(dir, 'data', 'eunoe.db'));
  });
});
