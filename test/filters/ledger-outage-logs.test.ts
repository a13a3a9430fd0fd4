import path from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { createAccountingFilter, createSpendLimitFilter } from 'eunoe/shipped';
import { FilterError } from '../../src/core/errors/index.js';
import type { FilterBody } from '../../src/runtime/host/types.js';
import { RedisStateStore } from '../../src/state/redis/redis-state-store.js';
import { freePort, redisServerBinary, startOwnedRedis } from '../helpers/redis-server.js';
import { captureLogger } from '../state/helpers/capture-logger.js';
import { tempDir } from '../helpers/temp-store.js';
import { waitFor } from '../helpers/wait-for.js';
import { hookArgs, realServices } from '../usage/helpers/hook-args.js';

// Redis is "down" here because nothing listens on the chosen port; later an owned redis-server takes it.
const canRun = Boolean(inject('redisUrl')) && redisServerBinary() !== undefined;
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const NOW = Date.UTC(2026, 10, 29, 12);
const outletBody = (id: string): FilterBody => ({
  model: 'anthropic/claude-3.5-sonnet',
  messages: [
    { id: `u-${id}`, role: 'user', content: 'Hi' },
    {
      id,
      role: 'assistant',
      content: 'Hello!',
      usage: { prompt_tokens: 1200, completion_tokens: 30, total_tokens: 1230 },
    },
  ],
  chat_id: 'c-1',
  id,
});

async function downStore(queueMax = 1000, logger = captureLogger().logger) {
  const { dir, remove } = tempDir('eunoe-outage-logs-');
  const port = await freePort();
  const store = new RedisStateStore({
    url: `redis://127.0.0.1:${port}`,
    prefix: 'eunoe-outage:',
    logger,
    timeoutMs: 200,
    queueMax,
    maxRetryDelayMs: 100,
    flushRetryMs: 100,
    journalFile: path.join(dir, 'ledger-journal.db'),
  });
  const { services, pricing } = await realServices(store, dir);
  cleanups.push(
    remove,
    () => store.close(),
    () => pricing.stop(),
  );
  return { store, services, port };
}

describe.runIf(canRun)('logs during a Redis outage say what happened, once', () => {
  it('accounting: every outlet is journaled, no ERROR lines, one line when the outage starts, one when back with the skipped corrections counted', async () => {
    const { logger, lines } = captureLogger(); // the store's lines and the filter's in one log, as in the server
    const { store, services, port } = await downStore(1000, logger);
    const filter = createAccountingFilter({ now: () => NOW });
    const outlet = (id: string) =>
      filter.outlet!({
        ...hookArgs(filter, { body: outletBody(id), store, services, hook: 'outlet', filterId: 'accounting' }),
        logger,
      });
    for (let index = 0; index < 20; index++) await outlet(`a-${index}`);

    expect(store.health().queued).toBe(20);
    expect(lines.filter((line) => line.level >= 50)).toEqual([]);
    const warnings = lines.filter((line) => line.level === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.msg).toMatch(/unavailable/);

    const redis = await startOwnedRedis(port);
    cleanups.push(() => redis.stop());
    await waitFor(() => store.health().queued === 0, { timeoutMs: 15_000 });
    await outlet('a-after');
    const back = lines.filter((line) => line.level === 30 && /is back after/.test(line.msg));
    expect(back).toHaveLength(1);
    expect(back[0]!.degraded).toEqual({
      'accounting: token correction skipped, the state store is unavailable (usage is still recorded)': 20,
    });
    expect(lines.filter((line) => line.level >= 40)).toHaveLength(1);
    expect((await services.ledger.list({})).map((record) => record.messageId).sort()).toEqual(
      [...Array.from({ length: 20 }, (_, index) => `a-${index}`), 'a-after'].sort(),
    );
  });

  it('accounting: a record neither Redis nor the journal takes is logged in full and answered 503, whatever reject_unrecorded says', async () => {
    const { store, services } = await downStore(1);
    const filter = createAccountingFilter({ now: () => NOW });
    const { logger, lines } = captureLogger();
    const outlet = (id: string) =>
      filter.outlet!({
        ...hookArgs(filter, {
          body: outletBody(id),
          store,
          services,
          hook: 'outlet',
          filterId: 'accounting', // reject_unrecorded left at its default (false): never answered as if recorded
        }),
        logger,
      });
    await outlet('kept');
    const error = await Promise.resolve(outlet('refused')).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(FilterError);
    expect((error as FilterError).status).toBe(503);
    expect(
      lines.find((line) => line.level === 50 && (line.record as { messageId?: string })?.messageId === 'refused'),
    ).toBeDefined();
  });

  it('spend-limit: requests pass while the ledger cannot be read, with one warning for the whole outage', async () => {
    const { logger, lines } = captureLogger();
    const { store, services } = await downStore(1000, logger);
    const filter = createSpendLimitFilter({ now: () => NOW });
    const body = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] };
    for (let index = 0; index < 10; index++) {
      const args = hookArgs(filter, {
        body,
        store,
        services,
        valves: { monthly_limit_usd: 5 },
        hook: 'inlet',
        filterId: 'spend-limit',
      });
      expect(await filter.inlet!({ ...args, logger })).toEqual(body);
    }
    expect(lines.filter((line) => line.level >= 50)).toEqual([]);
    expect(lines.filter((line) => line.level === 40)).toHaveLength(1);
  });
});
