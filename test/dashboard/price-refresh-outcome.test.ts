import { afterEach, describe, expect, it } from 'vitest';
import { withFreshness } from '../../src/features/dashboard/price-freshness.js';
import { createPricingService } from '../../src/runtime/pricing/pricing-service.js';
import { modelList, sendJson, startOpenRouter } from '../pricing/helpers/openrouter-server.js';
import { harness } from '../pricing/helpers/service-harness.js';

const DAY = 86_400_000;
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * What the pricing status tells the dashboard about refreshes: the last one's outcome (not only when it was tried)
 * and when one last succeeded, from a real pricing service against a loopback OpenRouter; and when the table in use
 * counts as old.
 */
describe('the price refresh outcome in the pricing status', () => {
  it('a success, then a failure: the failure is the last refresh, the success stays as the last good one', async () => {
    let answer: 'table' | 'error' = 'table';
    const server = await startOpenRouter((_request, response) =>
      answer === 'table' ? sendJson(response, modelList()) : sendJson(response, { error: 'down' }, 500),
    );
    cleanups.push(server.close);
    const h = harness({ PRICING_URL: server.url, PRICING_FETCH: 'false' });
    cleanups.push(h.cleanup);
    let now = Date.UTC(2026, 11, 5, 10);
    const service = createPricingService({
      config: h.config(),
      logger: h.logger,
      now: () => now,
      fetch: { retries: 0, sleep: async () => {} },
    });
    cleanups.push(() => service.stop());
    await service.start();
    expect(service.status()).toMatchObject({ lastRefresh: null, lastSuccessAt: null });

    expect((await service.refresh()).status).toBe('updated');
    expect(service.status()).toMatchObject({
      lastRefresh: { at: '2026-12-05T10:00:00.000Z', outcome: 'updated', models: 335 },
      lastSuccessAt: '2026-12-05T10:00:00.000Z',
      source: 'live',
      ageSeconds: 0,
    });
    // A table fetched just now is not flagged.
    expect(withFreshness(service.status())).toMatchObject({ stale: false, staleAfterDays: 30 });

    answer = 'error';
    now += DAY;
    expect((await service.refresh()).status).toBe('failed');
    const status = service.status();
    expect(status.lastRefresh).toEqual({
      at: '2026-12-06T10:00:00.000Z',
      outcome: 'failed',
      error: expect.stringMatching(/HTTP 500/),
    });
    expect(status.lastSuccessAt).toBe('2026-12-05T10:00:00.000Z');
    expect(status.lastRefreshAt).toBe('2026-12-06T10:00:00.000Z');

    // The same table 31 days after it was fetched is flagged; at 30 days it is not yet.
    now = Date.UTC(2026, 11, 5, 10) + 30 * DAY;
    expect(withFreshness(service.status()).stale).toBe(false);
    now += DAY;
    expect(withFreshness(service.status()).stale).toBe(true);
  });

  it('a table rejected as suspicious is the last refresh, with its reason', async () => {
    const server = await startOpenRouter((_request, response) => sendJson(response, { data: [] }));
    cleanups.push(server.close);
    const h = harness({ PRICING_URL: server.url, PRICING_FETCH: 'false' });
    cleanups.push(h.cleanup);
    const service = createPricingService({ config: h.config(), logger: h.logger });
    cleanups.push(() => service.stop());
    await service.start();
    expect((await service.refresh()).status).toBe('rejected');
    expect(service.status().lastRefresh).toMatchObject({
      outcome: 'rejected',
      error: expect.stringMatching(/suspicious table: 0 models/),
    });
    expect(service.status().lastSuccessAt).toBeNull();
  });
});
