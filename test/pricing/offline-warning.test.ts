import { afterEach, describe, expect, it } from 'vitest';
import { createPricingService } from '../../src/runtime/pricing/pricing-service.js';
import { modelList, sendJson, startOpenRouter } from './helpers/openrouter-server.js';
import { harness } from './helpers/service-harness.js';

const fast = { retries: 0, sleep: async () => {} };
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('pricing offline', () => {
  it('says once, at warn, how old the prices it keeps are; later failures are info; a success ends the outage', async () => {
    let online = false;
    const server = await startOpenRouter((request, response) => {
      if (online) sendJson(response, modelList());
      else request.socket.destroy(); // the network is away: the connection is dropped
    });
    cleanups.push(server.close);
    const h = harness({ PRICING_URL: server.url });
    cleanups.push(h.cleanup);
    const service = createPricingService({ config: h.config(), logger: h.logger, fetch: fast });
    cleanups.push(() => service.stop());
    await service.start();
    await service.idle();
    await service.refresh();
    await service.refresh();
    const refreshLines = h.lines.filter((line) => /refresh failed/.test(line.msg));
    expect(refreshLines.map((line) => line.level)).toEqual([40, 30, 30]);
    const snapshotDate = new Date(service.status().fetchedAt).toISOString().slice(0, 10);
    expect(refreshLines[0]!.msg).toMatch(
      new RegExp(`keeping the snapshot table with 335 models, prices of ${snapshotDate}, \\d+ days old`),
    );
    expect(refreshLines[0]).toMatchObject({ fetchedAt: `${snapshotDate}T00:00:00.000Z` });
    expect(service.status().ageSeconds).toBeGreaterThan(86_400);
    expect(h.lines.filter((line) => line.level >= 40 && /\n\s+at /.test(line.msg))).toEqual([]);

    online = true;
    expect((await service.refresh()).status).toBe('updated');
    online = false;
    await service.refresh();
    // A new outage after a success warns again, once.
    expect(h.lines.filter((line) => /refresh failed/.test(line.msg)).map((line) => line.level)).toEqual([
      40, 30, 30, 40,
    ]);
  });
});
