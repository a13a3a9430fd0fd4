import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createPricingService, type PricingService } from '../../src/runtime/pricing/pricing-service.js';
import { ConfigError } from '../../src/core/errors/index.js';
import { modelList, sendJson, startOpenRouter } from './helpers/openrouter-server.js';
import { harness } from './helpers/service-harness.js';
import { tempSqliteStore } from '../helpers/temp-store.js';

const fast = { retries: 0, sleep: async () => {} };
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
function track(service: PricingService) {
  cleanups.push(() => service.stop());
  return service;
}
const repriced = (model: Record<string, unknown>) =>
  model.id === 'openai/gpt-4o' ? { ...model, pricing: { ...(model.pricing as object), prompt: '0.000002' } } : model;

describe('pricing service', () => {
  it('starts offline from the bundled snapshot (no missing fallback) and logs one clear line', async () => {
    const server = await startOpenRouter(() => {});
    const url = server.url;
    await server.close();
    const h = harness({ PRICING_URL: url });
    cleanups.push(h.cleanup);
    const service = track(createPricingService({ config: h.config(), logger: h.logger, fetch: fast }));
    await service.start();
    expect(service.resolve('gpt-4o')?.prompt).toBe('0.0000025');
    await service.idle();
    const status = service.status();
    expect(status).toMatchObject({ source: 'snapshot', models: 335, fetchEnabled: true });
    expect(status.lastError).toMatch(/pricing fetch failed/);
    const warnings = h.lines.filter((line) => line.level >= 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.msg).toMatch(/refresh failed .*keeping the snapshot table with 335 models/);
  });

  it('PRICING_FETCH=false never calls out and says so once', async () => {
    const server = await startOpenRouter((_request, response) => sendJson(response, modelList()));
    cleanups.push(server.close);
    const h = harness({ PRICING_URL: server.url, PRICING_FETCH: 'false' });
    cleanups.push(h.cleanup);
    const service = track(createPricingService({ config: h.config(), logger: h.logger }));
    await service.start();
    await service.idle();
    expect(server.requests()).toBe(0);
    expect(h.lines.filter((line) => /PRICING_FETCH=false/.test(line.msg))).toHaveLength(1);
    expect(service.status().nextRefresh).toBeNull();
  });

  it('a successful refresh goes live, writes last-good.json, and the next start reuses it', async () => {
    const server = await startOpenRouter((_request, response) => sendJson(response, modelList(undefined, repriced)));
    cleanups.push(server.close);
    const h = harness({ PRICING_URL: server.url });
    cleanups.push(h.cleanup);
    const first = track(createPricingService({ config: h.config(), logger: h.logger, fetch: fast }));
    await first.start();
    await first.idle();
    expect(first.status()).toMatchObject({ source: 'live', models: 335, lastError: null });
    expect(first.resolve('gpt-4o')?.prompt).toBe('0.000002');
    expect(existsSync(path.join(h.dir, 'last-good.json'))).toBe(true);
    await first.stop();

    const second = track(createPricingService({ config: h.config({ PRICING_FETCH: 'false' }), logger: h.logger }));
    await second.start();
    expect(second.status().source).toBe('last-good');
    expect(second.resolve('openai/gpt-4o')?.prompt).toBe('0.000002');
  });

  it.each([
    ['500', (response: import('node:http').ServerResponse) => sendJson(response, { error: 'x' }, 500), /HTTP 500/],
    ['garbage', (response: import('node:http').ServerResponse) => response.end('not json'), /not JSON/],
    ['empty table', (response: import('node:http').ServerResponse) => sendJson(response, { data: [] }), /suspicious/],
    [
      'shrunken table',
      (response: import('node:http').ServerResponse) => sendJson(response, modelList(160)),
      /suspicious table: 160 models \(current 335\)/,
    ],
  ])('a %s refresh keeps the current table', async (_name, respond, error) => {
    const server = await startOpenRouter((_request, response) => respond(response));
    cleanups.push(server.close);
    const h = harness({ PRICING_URL: server.url, PRICING_FETCH: 'false' });
    cleanups.push(h.cleanup);
    const service = track(createPricingService({ config: h.config(), logger: h.logger, fetch: fast }));
    await service.start();
    const outcome = await service.refresh();
    expect(outcome.status === 'failed' || outcome.status === 'rejected').toBe(true);
    expect(service.status()).toMatchObject({ source: 'snapshot', models: 335 });
    expect(service.status().lastError).toMatch(error);
    expect(existsSync(path.join(h.dir, 'last-good.json'))).toBe(false);
  });

  it('accepts a table that shrank by less than half', async () => {
    const server = await startOpenRouter((_request, response) => sendJson(response, modelList(170)));
    cleanups.push(server.close);
    const h = harness({ PRICING_URL: server.url, PRICING_FETCH: 'false' });
    cleanups.push(h.cleanup);
    const service = track(createPricingService({ config: h.config(), logger: h.logger, fetch: fast }));
    await service.start();
    expect(await service.refresh()).toEqual({ status: 'updated', models: 170 });
  });

  it('an older last-good table yields to a newer bundled snapshot; a newer one wins', async () => {
    const h = harness({ PRICING_FETCH: 'false' });
    cleanups.push(h.cleanup);
    const table = (fetchedAt: number) => ({
      source: 'live',
      fetchedAt,
      models: { 'openai/gpt-4o': { id: 'openai/gpt-4o', prompt: '0.000009', completion: '0.00001' } },
      aliases: {},
    });
    writeFileSync(path.join(h.dir, 'last-good.json'), JSON.stringify(table(Date.UTC(2025, 0, 1))));
    const old = track(createPricingService({ config: h.config(), logger: h.logger }));
    await old.start();
    expect(old.status()).toMatchObject({ source: 'snapshot', models: 335, fetchedAt: '2025-12-02T00:00:00.000Z' });
    writeFileSync(path.join(h.dir, 'last-good.json'), JSON.stringify(table(Date.UTC(2026, 0, 1))));
    const fresh = track(createPricingService({ config: h.config(), logger: h.logger }));
    await fresh.start();
    expect(fresh.status()).toMatchObject({ source: 'last-good', models: 1 });
    expect(fresh.resolve('gpt-4o')?.prompt).toBe('0.000009');
  });

  it('custom pricing file and aliases override and extend the table', async () => {
    const h = harness({ PRICING_FETCH: 'false' });
    cleanups.push(h.cleanup);
    const customFile = path.join(h.dir, 'custom.json');
    const aliasFile = path.join(h.dir, 'aliases.json');
    writeFileSync(
      customFile,
      JSON.stringify({
        'acme/house-model': { prompt: '0.000001', completion: '0.000004', context_length: 32768 },
        'openai/gpt-4o': { prompt: '0.000002' },
      }),
    );
    writeFileSync(aliasFile, JSON.stringify({ 'company-gpt': 'openai/gpt-4o', house: 'acme/house-model' }));
    const config = h.config({ CUSTOM_PRICING_FILE: customFile, MODEL_ALIASES_FILE: aliasFile });
    const service = track(createPricingService({ config, logger: h.logger }));
    await service.start();
    expect(service.resolve('company-gpt')).toMatchObject({
      id: 'openai/gpt-4o',
      prompt: '0.000002',
      completion: '0.00001',
    });
    expect(service.resolve('house')).toMatchObject({ id: 'acme/house-model', contextLength: 32768 });
    expect(service.lookup.estimateCost('house', { promptTokens: 1000, completionTokens: 1000 })).toBe('0.005');
    expect(service.status()).toMatchObject({ customModels: 2, aliases: 2, models: 336 });
  });

  it('a malformed custom file or cron expression fails start-up with a ConfigError naming it', async () => {
    const h = harness({ PRICING_FETCH: 'false' });
    cleanups.push(h.cleanup);
    const bad = path.join(h.dir, 'bad.json');
    writeFileSync(bad, '{oops');
    await expect(
      createPricingService({ config: h.config({ CUSTOM_PRICING_FILE: bad }), logger: h.logger }).start(),
    ).rejects.toThrow(/CUSTOM_PRICING_FILE/);
    const cron = createPricingService({ config: h.config({ PRICING_CRON: '61 * * * *' }), logger: h.logger }).start();
    await expect(cron).rejects.toBeInstanceOf(ConfigError);
    await expect(
      createPricingService({ config: h.config({ PRICING_CRON: '61 * * * *' }), logger: h.logger }).start(),
    ).rejects.toThrow(/PRICING_CRON/);
  });

  it('saves the table in the store and a fresh instance without the file starts from it', async () => {
    const server = await startOpenRouter((_request, response) => sendJson(response, modelList(undefined, repriced)));
    cleanups.push(server.close);
    const { store, dispose: cleanup } = await tempSqliteStore();
    cleanups.push(cleanup);
    const a = harness({ PRICING_URL: server.url, PRICING_FETCH: 'false' });
    const b = harness({ PRICING_FETCH: 'false' });
    cleanups.push(a.cleanup, b.cleanup);
    const first = track(createPricingService({ config: a.config(), logger: a.logger, store, fetch: fast }));
    await first.start();
    expect(await first.refresh()).toEqual({ status: 'updated', models: 335 });
    const second = track(createPricingService({ config: b.config(), logger: b.logger, store }));
    await second.start();
    expect(second.status()).toMatchObject({ source: 'last-good', models: 335 });
    expect(second.resolve('gpt-4o')?.prompt).toBe('0.000002');
    expect(JSON.parse(readFileSync(path.join(a.dir, 'last-good.json'), 'utf8')).models['openai/gpt-4o'].prompt).toBe(
      '0.000002',
    );
  });

  it('concurrent refresh calls share one request', async () => {
    const server = await startOpenRouter((_request, response) =>
      setTimeout(() => sendJson(response, modelList()), 100),
    );
    cleanups.push(server.close);
    const h = harness({ PRICING_URL: server.url, PRICING_FETCH: 'false' });
    cleanups.push(h.cleanup);
    const service = track(createPricingService({ config: h.config(), logger: h.logger, fetch: fast }));
    await service.start();
    const [one, two] = await Promise.all([service.refresh(), service.refresh()]);
    expect(one).toEqual(two);
    expect(server.requests()).toBe(1);
  });
});
