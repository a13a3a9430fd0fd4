import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_FILTER_CODE_LABELS } from '../../src/runtime/metrics/metrics.js';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { listenOnLoopback, type LoopbackHttp } from '../helpers/loopback-server.js';
import { filterSource } from '../server/helpers/filter-source.js';
import { parsePrometheusText, sampleValue, type Sample } from './prometheus-text.js';

/**
 * Any API caller chooses the model id of an outlet and, through a filter that echoes it, an error code: the metrics'
 * label values must stay bounded whatever they send. 5,000 distinct model ids over real HTTP: half unknown to the
 * price table (counted as `other`), half variants of a priced model (`gpt-4o:v1`…, counted under the price-table id
 * they resolve to); a model the admin lists in METRICS_MODELS keeps its own label. Unbounded, /metrics grew from
 * about 20 KB to 6.5 MB.
 */
const MODELS = 5_000;
const user = { id: 'u-labels', email: 'labels@example.com', role: 'user' };

/** Refuses with the error code the caller sent (a filter whose codes come from its input). */
const echoCode = filterSource(`export default defineFilter({
  inlet: ({ body }) => { throw new FilterError(403, 'refused', { code: String(body.code) }); },
});`);

describe('metric labels stay bounded whatever callers send', () => {
  let runtime: TestRuntime;
  let server: LoopbackHttp;
  beforeAll(async () => {
    runtime = await createTestRuntime({
      filters: ['accounting.ts'],
      sources: { 'echo-code.ts': echoCode },
      env: { METRICS_MODELS: 'my-local-llama, team-assistant' },
    });
    server = await listenOnLoopback(runtime.app);
  });
  afterAll(async () => {
    await server?.close();
    await runtime?.dispose();
  });

  const post = (path: string, body: unknown) =>
    fetch(`${server.origin}${path}`, {
      method: 'POST',
      headers: { ...runtime.auth, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });

  /** One accounting outlet of `model` with reported usage. */
  const outlet = async (model: string, index: number) => {
    const response = await post('/accounting/filter/outlet', {
      user,
      body: {
        model,
        chat_id: 'c-labels',
        id: `r-${index}`,
        messages: [
          { id: `q-${index}`, role: 'user', content: 'Hi' },
          { id: `r-${index}`, role: 'assistant', content: 'Hello', usage: { prompt_tokens: 10, completion_tokens: 5 } },
        ],
      },
    });
    await response.arrayBuffer();
    expect(response.status).toBe(200);
  };

  /** Run `count` calls of `call`, 16 at a time. */
  async function inParallel(count: number, call: (index: number) => Promise<void>) {
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < count) await call(next++);
      }),
    );
  }

  const scrape = async (): Promise<{ text: string; samples: Sample[] }> => {
    const response = await fetch(`${server.origin}/metrics`, { headers: runtime.auth });
    const text = await response.text();
    return { text, samples: parsePrometheusText(text).samples };
  };

  it(`${MODELS.toLocaleString('en')} distinct model ids: /metrics stays small, the unknown ones counted as other`, async () => {
    await outlet('openai/gpt-4o', -1);
    const before = (await scrape()).text.length;
    await inParallel(MODELS, (index) =>
      outlet(index % 2 === 0 ? `attacker-model-${index}` : `gpt-4o:variant-${index}`, index),
    );
    await outlet('my-local-llama', MODELS);
    const { text, samples } = await scrape();
    console.log(`/metrics: ${(before / 1024).toFixed(1)} KB before, ${(text.length / 1024).toFixed(1)} KB after`);
    expect(text.length).toBeLessThan(before + 10_000);
    const records = samples.filter((sample) => sample.name === 'eunoe_usage_records_total');
    expect(new Set(records.map((sample) => sample.labels.model))).toEqual(
      new Set(['other', 'openai/gpt-4o', 'my-local-llama']),
    );
    const count = (model: string) =>
      records.filter((sample) => sample.labels.model === model).reduce((sum, sample) => sum + sample.value, 0);
    expect(count('other')).toBe(MODELS / 2);
    expect(count('openai/gpt-4o')).toBe(MODELS / 2 + 1);
    expect(count('my-local-llama')).toBe(1);
    expect(sampleValue(samples, 'eunoe_usage_tokens_total', { model: 'other', kind: 'prompt' })).toBe(
      (MODELS / 2) * 10,
    );
    expect(text).not.toMatch(/attacker-model|variant-/);
  }, 120_000);

  it('error codes a filter makes up are bounded too: the first ones, then other', async () => {
    const codes = MAX_FILTER_CODE_LABELS + 150;
    await inParallel(codes, async (index) => {
      const response = await post('/echo-code/filter/inlet', {
        user,
        body: { model: 'm', messages: [], code: `ERR_MADE_UP_${index}` },
      });
      await response.arrayBuffer();
      expect(response.status).toBe(403);
    });
    const rejections = (await scrape()).samples.filter((sample) => sample.name === 'eunoe_filter_rejections_total');
    const labels = new Set(rejections.map((sample) => sample.labels.code));
    expect(labels.size).toBe(MAX_FILTER_CODE_LABELS + 1);
    expect(labels.has('other')).toBe(true);
    expect(rejections.reduce((sum, sample) => sum + sample.value, 0)).toBe(codes);
  }, 60_000);

  it('paths and filter ids callers make up add no series: routes are patterns, filters the loaded ones', async () => {
    // The series of requests and hooks (what a made-up path or filter id could add to); other series may appear
    // meanwhile on their own (a store's first batched write of this runtime's statistics, say).
    const ofRequests = (samples: Array<{ name: string }>) =>
      samples.filter((sample) => /^eunoe_(http|hook)_/.test(sample.name)).length;
    const before = ofRequests((await scrape()).samples);
    expect(before).toBeGreaterThan(0);
    await inParallel(500, async (index) => {
      const unknownPath = await fetch(`${server.origin}/made-up-${index}`, { headers: runtime.auth });
      await unknownPath.arrayBuffer();
      expect(unknownPath.status).toBe(404);
      const unknownFilter = await post(`/made-up-${index}/filter/inlet`, { user, body: { model: 'm', messages: [] } });
      await unknownFilter.arrayBuffer();
      expect(unknownFilter.status).toBe(404);
    });
    const { samples } = await scrape();
    const labels = (name: string, label: string) =>
      new Set(samples.filter((sample) => sample.name.startsWith(name)).map((sample) => sample.labels[label]));
    expect([...labels('eunoe_http_requests_total', 'route')].some((route) => route?.includes('made-up'))).toBe(false);
    expect([...labels('eunoe_hook_duration_seconds', 'filter')].some((id) => id?.includes('made-up'))).toBe(false);
    // At most the new 404 series of the two route labels they fall under (`unmatched`, the hook route).
    expect(ofRequests(samples)).toBeLessThanOrEqual(before + 2);
  }, 60_000);
});
