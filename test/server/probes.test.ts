import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { ModuleRegistry } from '../../src/runtime/host/module-registry.js';
import { ValvesRepository } from '../../src/runtime/host/valves-repository.js';
import { silentLogger } from '../../src/core/util/logger.js';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { PREFIXES } from './helpers/http.js';
import { waitFor } from '../helpers/wait-for.js';

// The Redis the suite found (global setup: under CI=true a missing Redis fails the run). The test
// stops a TCP proxy in front of it, so it needs no redis-server binary of its own.
const redisUrl = inject('redisUrl');

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function runtimeWith(options: Parameters<typeof createTestRuntime>[0] = {}): Promise<TestRuntime> {
  const runtime = await createTestRuntime(options);
  cleanups.push(() => runtime.dispose());
  return runtime;
}

describe('public probes', () => {
  it.each(PREFIXES)('GET %s/healthz and /readyz answer without a key; /health still needs it', async (prefix) => {
    const runtime = await runtimeWith({ filters: ['turn-limit.ts'] });
    const live = await request(runtime.app).get(`${prefix}/healthz`).expect(200);
    expect(live.body).toEqual({ status: 'ok' });
    expect(live.headers['content-type']).toMatch(/^application\/json/);
    const ready = await request(runtime.app).get(`${prefix}/readyz`).expect(200);
    expect(ready.body).toEqual({ status: 'ready', checks: { filters: true, store: true, ledger: true } });
    await request(runtime.app).get(`${prefix}/health`).expect(401);
    const detailed = await request(runtime.app).get(`${prefix}/health`).set(runtime.auth).expect(200);
    expect(detailed.body).toMatchObject({
      status: true,
      filters: 1,
      failed: 0,
      store: { backend: 'sqlite', ok: true },
    });
  });

  it('probes reveal nothing: no filter ids, no store detail, wrong methods are 405', async () => {
    const runtime = await runtimeWith({ filters: ['turn-limit.ts'] });
    const ready = await request(runtime.app).get('/readyz').expect(200);
    expect(JSON.stringify(ready.body)).not.toContain('turn');
    await request(runtime.app).post('/healthz').expect(405);
  });

  it('GET /readyz is 503 until the filters have been loaded', async () => {
    const runtime = await runtimeWith();
    const logger = silentLogger();
    const valves = new ValvesRepository({ dir: runtime.config.VALVES_DIR, store: runtime.store, logger });
    const registry = new ModuleRegistry({
      dir: runtime.filtersDir,
      store: runtime.store,
      valves,
      services: runtime.services,
      logger,
    });
    const app = createApp({
      apiKey: runtime.apiKey,
      logger,
      store: runtime.store,
      registry,
      valves,
      services: runtime.services,
      filtersDir: runtime.filtersDir,
      bodyLimit: 1024,
      uploadLimit: 1024,
      hookTimeoutMs: 1000,
      addTimeoutMs: 1000,
    });
    const before = await request(app).get('/readyz').expect(503);
    expect(before.body).toMatchObject({ status: 'not ready', checks: { filters: false, store: true } });
    expect(before.body.detail).toMatch(/filters are not loaded/);
    await request(app).get('/healthz').expect(200);
    await registry.loadAll();
    await request(app).get('/readyz').expect(200);
    await registry.close();
  });

  describe.runIf(redisUrl)('with Redis as the state backend', () => {
    it('GET /readyz turns 503 when Redis stops and 200 again when it is back; /healthz stays 200', async () => {
      const redis: TcpProxy = await startTcpProxy(redisUrl);
      cleanups.push(() => redis.stop());
      const runtime = await runtimeWith({
        filters: ['turn-limit.ts'],
        env: { REDIS_URL: redis.url, REDIS_PREFIX: `eunoe-probe:${randomUUID()}:`, STATE_TIMEOUT_MS: '300' },
      });
      const ready = await request(runtime.app).get('/readyz').expect(200);
      expect(ready.body.topology).toEqual({ kind: 'single' });
      await redis.stop();
      const down = await waitFor(async () => await request(runtime.app).get('/readyz'), {
        until: (response) => response.status === 503,
      });
      expect(down.body).toMatchObject({
        status: 'not ready',
        checks: { filters: true, store: false },
        topology: { kind: 'single' },
      });
      expect(down.body.detail).toMatch(/state store \(redis\) does not answer/);
      await request(runtime.app).get('/healthz').expect(200);
      await redis.start();
      await waitFor(async () => await request(runtime.app).get('/readyz'), {
        until: (response) => response.status === 200,
        timeoutMs: 10_000,
      });
    });
  });
});
