import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { add, formatDecimal, parseDecimal } from '../../src/domain/pricing/decimal.js';
import { joinCost } from '../../src/domain/usage/cost-parts.js';
import { redisServerBinary, startOwnedRedis } from '../helpers/redis-server.js';
import { serverCaller, outletWithUsage } from '../helpers/server-calls.js';
import { startServerProcess } from '../helpers/server-process.js';
import { tempDir } from '../helpers/temp-store.js';
import { waitFor } from '../helpers/wait-for.js';

// Owns its redis-server (own port, append-only file fsynced on every write); the shared Redis is never stopped.
const canRun = Boolean(inject('redisUrl')) && redisServerBinary() !== undefined;
const KEY = 'crash-test-key';
const USER = { id: 'u-crash', role: 'user' };
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const call = serverCaller(KEY);

const outletBody = (id: string, prompt: number) => outletWithUsage('chat-crash', id, prompt);

describe.runIf(canRun)('an answered record is never lost', () => {
  it('two replicas, Redis down, one replica killed (SIGKILL): after restarts, every answered record is in the ledger exactly once', async () => {
    const { dir: root, remove } = tempDir('eunoe-crash-');
    cleanups.push(remove);
    const filters = path.join(root, 'filters');
    mkdirSync(filters);
    mkdirSync(path.join(root, 'redis'));
    const redis = await startOwnedRedis(undefined, { persistDir: path.join(root, 'redis') });
    cleanups.push(() => redis.stop());
    const prefix = `eunoe-crash-${randomBytes(4).toString('hex')}:`;
    const env = (name: string) => ({
      REDIS_URL: redis.url,
      REDIS_PREFIX: prefix,
      PIPELINES_API_KEY: KEY,
      // The shipped accounting filter, in the server's thread as deployed (a filter worker is not the subject here).
      SHIPPED_FILTERS: 'accounting',
      FILTERS_DIR: filters,
      DATA_DIR: path.join(root, name, 'data'),
      VALVES_DIR: path.join(root, name, 'valves'),
      STATE_TIMEOUT_MS: '300',
      WATCH_FILTERS: 'false',
    });
    let [server, other] = await Promise.all([startServerProcess(env('a')), startServerProcess(env('b'))]);
    cleanups.push(
      () => server.stop(),
      () => other.stop(),
    );

    const answered: Array<{ id: string; cost: string }> = [];
    const send = async (id: string, prompt: number, retry = false) => {
      const replica = (prompt % 2 === 0) !== retry ? server : other;
      const response = await call(replica, 'POST', '/accounting/filter/outlet', {
        user: USER,
        body: outletBody(id, prompt),
      });
      if (response.status === 200 && !answered.some((entry) => entry.id === id))
        answered.push({ id, cost: String(prompt / 1e7) });
      return response.status;
    };
    for (let index = 0; index < 20; index++) expect(await send(`up-${index}`, 1000 + index)).toBe(200);

    await redis.stop(); // SIGKILL; its append-only file keeps what it acknowledged
    for (let index = 0; index < 300; index++) expect(await send(`down-${index}`, 2000 + index)).toBe(200);
    for (let index = 0; index < 10; index++) expect(await send(`down-${index}`, 2000 + index, true)).toBe(200); // retried on the other replica
    const health = await call(server, 'GET', '/health');
    expect(health.body.store.queued).toBeGreaterThanOrEqual(150);
    await server.kill(); // SIGKILL while Redis is still down: no shutdown code runs

    await redis.start(); // the surviving replica replays its own journal by itself
    server = await startServerProcess(env('a')); // the killed one replays its journal at start
    await waitFor(
      async () => {
        const usage = await call(server, 'GET', `/usage?user=${USER.id}`);
        return usage.status === 200 && usage.body.totals.records >= answered.length;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );

    await waitFor(async () => (await call(other, 'GET', '/health')).body.store.queued === 0, {
      timeoutMs: 30_000,
      intervalMs: 100,
    });
    const usage = await call(server, 'GET', `/usage?user=${USER.id}&limit=5000`);
    const ids: string[] = usage.body.records.map((record: { messageId: string }) => record.messageId);
    expect(ids).toHaveLength(answered.length);
    expect(new Set(ids)).toEqual(new Set(answered.map((entry) => entry.id)));
    const expected = formatDecimal(add(...answered.map((entry) => parseDecimal(entry.cost) ?? 0n)));
    expect(usage.body.totals.cost).toBe(expected);
    // The spend counter the spend limit reads was replayed exactly once too.
    const admin = new Redis(redis.url);
    cleanups.push(() => admin.disconnect());
    const month = `m:${new Date().toISOString().slice(0, 7)}`;
    const [hi, lo] = await admin.hmget(`${prefix}u:spend:${USER.id}`, `${month}:hi`, `${month}:lo`);
    expect(formatDecimal(joinCost(hi, lo))).toBe(expected);
  }, 120_000);
});
