import { afterEach, describe, expect, it } from 'vitest';
import type { TaskOptions } from 'node-cron';
import { createPricingService } from '../../src/runtime/pricing/pricing-service.js';
import type { CronScheduler } from '../../src/domain/pricing/cron-scheduler.js';
import { modelList, sendJson, startOpenRouter } from './helpers/openrouter-server.js';
import { waitFor } from '../helpers/wait-for.js';
import { harness } from './helpers/service-harness.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('pricing refresh schedule', () => {
  it('uses createTask with noOverlap in UTC, starts it, runs once at boot and on every tick', async () => {
    const server = await startOpenRouter((_request, response) => sendJson(response, modelList()));
    cleanups.push(server.close);
    const h = harness({ PRICING_URL: server.url, PRICING_CRON: '*/5 * * * *' });
    cleanups.push(h.cleanup);
    const created: Array<{
      expression: string;
      options: TaskOptions;
      run: () => Promise<unknown>;
      started: boolean;
      stopped: boolean;
    }> = [];
    const scheduler: CronScheduler = {
      validate: (expression) => expression === '*/5 * * * *',
      createTask(expression, run, options) {
        const task = { expression, options, run, started: false, stopped: false };
        created.push(task);
        return {
          start: () => void (task.started = true),
          stop: () => void (task.stopped = true),
          destroy: () => {},
          getNextRun: () => new Date(Date.UTC(2026, 0, 1, 0, 5)),
        };
      },
    };
    const service = createPricingService({ config: h.config(), logger: h.logger, scheduler, fetch: { retries: 0 } });
    await service.start();
    await service.idle();
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({
      expression: '*/5 * * * *',
      started: true,
      options: { noOverlap: true, timezone: 'UTC' },
    });
    expect(server.requests()).toBe(1);
    expect(service.status().nextRefresh).toBe('2026-01-01T00:05:00.000Z');
    await created[0]!.run();
    await created[0]!.run();
    expect(server.requests()).toBe(3);
    await service.stop();
    expect(created[0]!.stopped).toBe(true);
  });

  it('with real node-cron every second, prices are refreshed on schedule and a slow fetch never overlaps', async () => {
    let active = 0;
    let maxActive = 0;
    const server = await startOpenRouter((_request, response) => {
      active++;
      maxActive = Math.max(maxActive, active);
      setTimeout(() => {
        active--;
        sendJson(response, modelList());
      }, 1300);
    });
    cleanups.push(server.close);
    const h = harness({ PRICING_URL: server.url, PRICING_CRON: '* * * * * *' });
    cleanups.push(h.cleanup);
    const service = createPricingService({ config: h.config(), logger: h.logger, fetch: { retries: 0 } });
    cleanups.push(() => service.stop());
    const started = Date.now();
    await service.start();
    // The boot fetch plus at least one fetch started by a tick, both answered: however slow the
    // machine, the ticks that fell inside a running fetch had their chance to overlap it.
    await waitFor(() => server.requests() >= 2 && active === 0, { timeoutMs: 20_000 });
    await service.stop();
    expect(server.requests()).toBeGreaterThanOrEqual(2);
    // On schedule, not more often: the boot fetch plus at most one per whole second that passed.
    expect(server.requests()).toBeLessThanOrEqual(1 + Math.ceil((Date.now() - started) / 1000));
    expect(maxActive).toBe(1);
    expect(service.status().source).toBe('live');
  });
});
