import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_EVENT_TEXT, MAX_EVENTS } from '../../../src/runtime/host/hook-events.js';
import { createTestRuntime, type TestRuntime } from '../../helpers/create-test-runtime.js';
import { filterSource } from '../../server/helpers/filter-source.js';

/** A filter that reports in every way a filter can, well and badly. */
const emitter = filterSource(`export default defineFilter({
  name: 'Emitter',
  inlet({ body, emit }) {
    emit({ type: 'status', data: { description: 'step one' } });
    emit({ type: 'notification', data: { type: 'warning', content: 'careful' } });
    emit({ type: 'status', data: { description: 'x'.repeat(2000), done: false } });
    emit('not an event');
    emit({ type: 'replace', data: { content: 'rewrite the reply' } });
    emit({ type: 'status', data: {} });
    for (let index = 0; index < 50; index++) emit({ type: 'status', data: { description: 'loop ' + index } });
    return body;
  },
});`);

describe.each(['off', 'worker'] as const)('what a filter emits (FILTER_ISOLATION=%s)', (isolation) => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime({ sources: { 'emitter.ts': emitter }, env: { FILTER_ISOLATION: isolation } });
  });
  afterAll(async () => runtime.dispose());

  it('reaches the Function chain in order: statuses and notifications only, text clipped, at most MAX_EVENTS', async () => {
    const response = await request(runtime.app)
      .post('/integrations/open-webui/inlet')
      .set(runtime.auth)
      .send({ body: { model: 'm', messages: [{ role: 'user', content: 'hi' }] }, user: { id: 'u' } })
      .expect(200);
    const events = response.body.events as Array<{ type: string; data: Record<string, unknown> }>;
    expect(events).toHaveLength(MAX_EVENTS);
    expect(events.slice(0, 3)).toEqual([
      { type: 'status', data: { description: 'step one', done: true } },
      { type: 'notification', data: { type: 'warning', content: 'careful' } },
      { type: 'status', data: { description: `${'x'.repeat(MAX_EVENT_TEXT - 1)}…`, done: false } },
    ]);
    expect(events[3]).toEqual({ type: 'status', data: { description: 'loop 0', done: true } });
    expect(response.body.body.messages).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('is not part of a Pipelines answer (the protocol has no channel for it)', async () => {
    const response = await request(runtime.app)
      .post('/emitter/filter/inlet')
      .set(runtime.auth)
      .send({ body: { model: 'm', messages: [{ role: 'user', content: 'hi' }] }, user: { id: 'u' } })
      .expect(200);
    expect(response.body).toEqual({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
  });
});
