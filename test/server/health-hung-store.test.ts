import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { redisServerBinary, startOwnedRedis } from '../helpers/redis-server.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { tempDir } from '../helpers/temp-store.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * GET /health with a Redis that hangs (SIGSTOP: the connection stays open, nothing answers): it answered 200 with
 * `store.ok: true` while writes were piling up in the journal. Now it is 503 with `ok: false` (idle or under load),
 * and 200 again once Redis answers and the journal has been written.
 */
const canRun = Boolean(inject('redisUrl')) && redisServerBinary() !== undefined;
const KEY = 'health-hung-key-0123456789';
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Health {
  status: boolean;
  store: { ok: boolean; queued?: number; detail?: string };
}

async function health(server: ServerProcess): Promise<{ code: number; body: Health }> {
  const response = await fetch(`${server.url}/health`, {
    headers: { authorization: `Bearer ${KEY}` },
    signal: AbortSignal.timeout(10_000),
  });
  return { code: response.status, body: (await response.json()) as Health };
}

const outlet = (server: ServerProcess, id: string) =>
  fetch(`${server.url}/accounting/filter/outlet`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      body: {
        model: 'openai/gpt-4o',
        messages: [
          { id: `u-${id}`, role: 'user', content: 'Hi' },
          { id, role: 'assistant', content: 'Hello!', usage: { prompt_tokens: 100, completion_tokens: 5 } },
        ],
        chat_id: 'c-health',
        id,
      },
      user: { id: 'u-health', role: 'user' },
    }),
    signal: AbortSignal.timeout(20_000),
  }).then((response) => response.status);

describe.runIf(canRun)('GET /health while Redis hangs', () => {
  it('is 503 with ok false when paused (idle, then with writes queued), 200 and ok once it answers again', async () => {
    const { dir, remove } = tempDir('eunoe-health-hung-');
    cleanups.push(remove);
    const redis = await startOwnedRedis();
    cleanups.push(() => redis.stop());
    const server = await startServerProcess({
      DATA_DIR: dir,
      REDIS_URL: redis.url,
      REDIS_PREFIX: `eunoe-health:${randomUUID()}:`,
      STATE_TIMEOUT_MS: '300',
      SHIPPED_FILTERS: 'accounting',
      PIPELINES_API_KEY: KEY,
    });
    cleanups.push(() => server.stop());
    cleanups.push(() => redis.resume()); // never leave a stopped process behind

    const before = await health(server);
    expect(before.code).toBe(200);
    expect(before.body).toMatchObject({ status: true, store: { ok: true, queued: 0 } });

    redis.pause();
    // Idle: no request has touched the store since the pause; the bounded read of /health finds it.
    const idle = await health(server);
    expect(idle.code).toBe(503);
    expect(idle.body.status).toBe(false);
    expect(idle.body.store.ok).toBe(false);
    expect(idle.body.store.detail).toMatch(/not answering|does not answer/);

    // Under load: 40 outlets at once are answered (journaled) while Redis is stopped.
    const statuses = await Promise.all(Array.from({ length: 40 }, (_, index) => outlet(server, `h-${index}`)));
    expect(statuses.every((status) => status === 200)).toBe(true);
    const loaded = await health(server);
    expect(loaded.code).toBe(503);
    expect(loaded.body.store.ok).toBe(false);
    expect(loaded.body.store.queued).toBeGreaterThan(0);

    redis.resume();
    await waitFor(
      async () => {
        const after = await health(server);
        return after.code === 200 && after.body.store.ok && after.body.store.queued === 0;
      },
      { timeoutMs: 20_000, intervalMs: 100 },
    );
  });
});
