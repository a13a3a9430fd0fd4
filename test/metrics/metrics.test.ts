import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenMetrics } from '../../src/runtime/metrics/listen-metrics.js';
import { silentLogger } from '../../src/core/util/logger.js';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { freePort } from '../helpers/redis-server.js';
import { reportedReplyOutlet } from '../helpers/server-calls.js';
import { filterSource } from '../server/helpers/filter-source.js';
import { parsePrometheusText, sampleValue, type Sample } from './prometheus-text.js';

const user = { id: 'u-metrics', email: 'm@example.com', name: 'M', role: 'user' };

/** A filter whose inlet fails on demand: `throw` → 500, `sleep` → past the hook timeout. */
const moody = filterSource(`export default defineFilter({
  name: 'Moody',
  valves: baseValves.extend({ pipelines: z.array(z.string()).default(['*']) }),
  inlet: async ({ body }) => {
    if (body.mood === 'throw') throw new Error('moody failed');
    if (body.mood === 'sleep') await new Promise((resolve) => setTimeout(resolve, 5000));
    return body;
  },
});`);

/** A long chat, so a small budget makes the context filter drop messages. */
function longChat(turns: number) {
  const messages = [];
  for (let turn = 0; turn < turns; turn++) {
    messages.push({ role: 'user', content: `Question ${turn} about the quarterly report and its many numbers.` });
    messages.push({ role: 'assistant', content: `Answer ${turn}: the figures for region ${turn} rose by ${turn}%.` });
  }
  messages.push({ role: 'user', content: 'What about region 3?' });
  return messages;
}

describe('GET /metrics', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime({
      filters: ['context.ts', 'accounting.ts', 'spend-limit.ts'],
      sources: { 'moody.ts': moody },
      env: { HOOK_TIMEOUT_MS: '400' },
    });
    await request(runtime.app)
      .post('/context/valves/update')
      .set(runtime.auth)
      .send({ max_tokens: 200, recent: 2 })
      .expect(200);
    await request(runtime.app)
      .post('/spend-limit/valves/update')
      .set(runtime.auth)
      .send({ daily_limit_usd: 0.01 })
      .expect(200);
  });
  afterAll(async () => runtime.dispose());

  const scrape = async (): Promise<Sample[]> => {
    const response = await request(runtime.app).get('/metrics').set(runtime.auth).expect(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return parsePrometheusText(response.text).samples;
  };

  it('needs the API key by default', async () => {
    await request(runtime.app).get('/metrics').expect(401);
    await request(runtime.app).get('/v1/metrics').set(runtime.auth).expect(200);
  });

  it('is valid Prometheus text with Node’s process metrics and the state, ledger and pricing gauges', async () => {
    const response = await request(runtime.app).get('/metrics').set(runtime.auth).expect(200);
    const { samples, types } = parsePrometheusText(response.text);
    expect(types).toMatchObject({
      process_cpu_user_seconds_total: 'counter',
      nodejs_heap_size_used_bytes: 'gauge',
      eunoe_http_requests_total: 'counter',
      eunoe_hook_duration_seconds: 'histogram',
      eunoe_state_backend_up: 'gauge',
      eunoe_ledger_queue_depth: 'gauge',
      eunoe_ledger_unrecorded_total: 'counter',
      eunoe_pricing_table_age_seconds: 'gauge',
    });
    expect(sampleValue(samples, 'eunoe_state_backend_up', { backend: 'sqlite' })).toBe(1);
    expect(sampleValue(samples, 'eunoe_ledger_queue_depth')).toBe(0);
    expect(sampleValue(samples, 'eunoe_ledger_unrecorded_total')).toBe(0);
    // The bundled snapshot is older than a day.
    expect(sampleValue(samples, 'eunoe_pricing_table_age_seconds')).toBeGreaterThan(86_400);
  });

  it('counters move after an inlet and an outlet: requests, hook durations, context plan, usage and cost', async () => {
    const before = await scrape();
    const inlet = await request(runtime.app)
      .post('/context/filter/inlet')
      .set(runtime.auth)
      .send({ body: { model: 'openai/gpt-4o', messages: longChat(12) }, user })
      .expect(200);
    expect(inlet.body.messages.length).toBeLessThan(25);
    const outletBody = reportedReplyOutlet('c-metrics');
    await request(runtime.app)
      .post('/accounting/filter/outlet')
      .set(runtime.auth)
      .send({ body: outletBody, user })
      .expect(200);
    // The same message again is not a new record: usage does not count twice.
    await request(runtime.app)
      .post('/accounting/filter/outlet')
      .set(runtime.auth)
      .send({ body: outletBody, user })
      .expect(200);
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string> = {}) =>
      sampleValue(after, name, labels) - sampleValue(before, name, labels);

    expect(delta('eunoe_http_requests_total', { route: '/:id/filter/inlet', method: 'POST', status: '200' })).toBe(1);
    expect(delta('eunoe_http_requests_total', { route: '/:id/filter/outlet', method: 'POST', status: '200' })).toBe(2);
    expect(delta('eunoe_hook_duration_seconds_count', { filter: 'context', hook: 'inlet' })).toBe(1);
    expect(delta('eunoe_hook_duration_seconds_count', { filter: 'accounting', hook: 'outlet' })).toBe(2);
    expect(delta('eunoe_hook_duration_seconds_sum', { filter: 'context', hook: 'inlet' })).toBeGreaterThan(0);
    expect(delta('eunoe_context_plans_total')).toBe(1);
    const tokensBefore = delta('eunoe_context_tokens_total', { stage: 'before' });
    const tokensAfter = delta('eunoe_context_tokens_total', { stage: 'after' });
    expect(tokensBefore).toBeGreaterThan(tokensAfter);
    expect(tokensAfter).toBeGreaterThan(0);
    expect(tokensAfter).toBeLessThanOrEqual(200);
    expect(delta('eunoe_context_messages_total', { outcome: 'dropped' })).toBeGreaterThan(0);
    expect(delta('eunoe_context_messages_total', { outcome: 'kept' })).toBe(inlet.body.messages.length);
    expect(delta('eunoe_usage_tokens_total', { model: 'openai/gpt-4o', kind: 'prompt' })).toBe(1200);
    expect(delta('eunoe_usage_tokens_total', { model: 'openai/gpt-4o', kind: 'completion' })).toBe(350);
    expect(delta('eunoe_usage_cost_usd_total', { model: 'openai/gpt-4o' })).toBeCloseTo(0.0123, 10);
    expect(delta('eunoe_usage_records_total', { model: 'openai/gpt-4o', cost_source: 'reported' })).toBe(1);
  });

  it('counts spend-limit rejections, filter errors and timeouts apart', async () => {
    const before = await scrape();
    const body = { model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'Hi' }] };
    // The outlet above spent $0.0123 of the $0.01 daily cap.
    await request(runtime.app).post('/spend-limit/filter/inlet').set(runtime.auth).send({ body, user }).expect(429);
    await request(runtime.app)
      .post('/moody/filter/inlet')
      .set(runtime.auth)
      .send({ body: { ...body, mood: 'throw' } })
      .expect(500);
    await request(runtime.app)
      .post('/moody/filter/inlet')
      .set(runtime.auth)
      .send({ body: { ...body, mood: 'sleep' } })
      .expect(504);
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string> = {}) =>
      sampleValue(after, name, labels) - sampleValue(before, name, labels);
    expect(
      delta('eunoe_filter_rejections_total', {
        filter: 'spend-limit',
        hook: 'inlet',
        status: '429',
        code: 'ERR_SPEND_LIMIT',
      }),
    ).toBe(1);
    expect(delta('eunoe_filter_errors_total', { filter: 'moody', hook: 'inlet', code: 'ERR_FILTER_FAILED' })).toBe(1);
    expect(delta('eunoe_filter_timeouts_total', { filter: 'moody', hook: 'inlet' })).toBe(1);
    expect(delta('eunoe_http_requests_total', { route: '/:id/filter/inlet', method: 'POST', status: '504' })).toBe(1);
  });
});

describe('metrics without the key', () => {
  it('METRICS_PUBLIC=true serves GET /metrics without a key; other routes still need it', async () => {
    const runtime = await createTestRuntime({ env: { METRICS_PUBLIC: 'true' } });
    try {
      const response = await request(runtime.app).get('/metrics').expect(200);
      expect(parsePrometheusText(response.text).types.eunoe_http_requests_total).toBe('counter');
      await request(runtime.app).get('/models').expect(401);
    } finally {
      await runtime.dispose();
    }
  });

  it('METRICS_PORT serves GET /metrics without a key on its own port (real HTTP), and nothing else', async () => {
    const runtime = await createTestRuntime();
    const port = await freePort();
    const metricsServer = listenMetrics(runtime.metrics, { METRICS_PORT: port, HOST: '127.0.0.1' }, silentLogger());
    if (!metricsServer) throw new Error('METRICS_PORT set but no server');
    try {
      await new Promise((resolve) => metricsServer.once('listening', resolve));
      expect((metricsServer.address() as AddressInfo).port).toBe(port);
      const response = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(response.status).toBe(200);
      expect(parsePrometheusText(await response.text()).types.process_cpu_user_seconds_total).toBe('counter');
      expect((await fetch(`http://127.0.0.1:${port}/models`)).status).toBe(404);
    } finally {
      metricsServer.close();
      await runtime.dispose();
    }
  });
});
