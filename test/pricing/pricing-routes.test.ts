import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type express from 'express';
import request from 'supertest';
import { pricingRouter } from '../../src/server/routes/pricing.js';
import { routeApp } from '../helpers/route-app.js';
import { createPricingService, type PricingService } from '../../src/runtime/pricing/pricing-service.js';
import { harness } from './helpers/service-harness.js';

let service: PricingService;
let app: express.Express;
const h = harness({ PRICING_FETCH: 'false' });
const fixedNow = Date.UTC(2030, 0, 1);

beforeAll(async () => {
  service = createPricingService({ config: h.config(), logger: h.logger, now: () => fixedNow });
  await service.start();
  app = routeApp(['/', pricingRouter({ pricing: service })], ['/v1', pricingRouter({ pricing: service })]);
});
afterAll(async () => {
  await service.stop();
  h.cleanup();
});

describe('pricing routes', () => {
  it('GET /pricing/status reports source, load time, age, count and last error', async () => {
    const response = await request(app).get('/pricing/status').expect(200);
    expect(response.body).toMatchObject({
      source: 'snapshot',
      models: 335,
      lastError: null,
      fetchEnabled: false,
      loadedAt: '2030-01-01T00:00:00.000Z',
    });
    expect(response.body.fetchedAt).toBe('2025-12-02T00:00:00.000Z');
    expect(response.body.ageSeconds).toBe(Math.round((fixedNow - Date.parse(response.body.fetchedAt)) / 1000));
  });

  it('GET /pricing/<id with slash, dots and colon> resolves and names the resolved id', async () => {
    const gpt = await request(app).get('/pricing/openai/gpt-4.1').expect(200);
    expect(gpt.body).toMatchObject({
      model: 'openai/gpt-4.1',
      resolvedId: 'openai/gpt-4.1',
      prompt: '0.000002',
      completion: '0.000008',
    });
    const free = await request(app).get('/v1/pricing/meta-llama/llama-3.2-3b-instruct:free').expect(200);
    expect(free.body).toMatchObject({
      resolvedId: 'meta-llama/llama-3.2-3b-instruct:free',
      prompt: '0',
      completion: '0',
    });
    const bare = await request(app).get('/pricing/gemini-2.5-pro').expect(200);
    expect(bare.body.resolvedId).toBe('google/gemini-2.5-pro');
    const prefixed = await request(app).get('/pricing/openrouter.openai/gpt-4o').expect(200);
    expect(prefixed.body.resolvedId).toBe('openai/gpt-4o');
  });

  it('workspace models resolve through ?base_model_id=', async () => {
    const response = await request(app).get('/pricing/my-helper?base_model_id=gpt-4o').expect(200);
    expect(response.body.resolvedId).toBe('openai/gpt-4o');
  });

  it('unknown models are a JSON 404; "-1" routers are known but unpriced', async () => {
    const response = await request(app).get('/pricing/nope/never').expect(404);
    expect(response.body).toEqual({ detail: 'Unknown model: nope/never' });
    const auto = await request(app).get('/pricing/openrouter/auto').expect(200);
    expect(auto.body.prompt).toBeUndefined();
  });
});
