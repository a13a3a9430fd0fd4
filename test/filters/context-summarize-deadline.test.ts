import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { chatReply, startLoopback, type LoopbackServer } from '../llm/helpers/loopback-openai.js';
import { orderChat, promptTokens } from '../compress/helpers/order-chat.js';

describe('a summarizer slower than the hook timeout', () => {
  let runtime: TestRuntime;
  let server: LoopbackServer;
  beforeAll(async () => {
    // The model answers long after the host's hook timeout (its connection is dropped at close).
    server = await startLoopback(() => ({ ...chatReply('too late'), delayMs: 60_000 }));
    runtime = await createTestRuntime({ filters: ['context.ts'], env: { HOOK_TIMEOUT_MS: '8000' } });
    await request(runtime.app)
      .post('/context/valves/update')
      .set(runtime.auth)
      .send({
        max_tokens: '700',
        summary_min_budget: '0',
        weighting: 'static',
        summary_base_url: server.url,
        summary_model: 'mini',
        summary_timeout_ms: '20000',
        summary_retries: '0',
        ahead_of_time: 'false',
      })
      .expect(200);
    // A chat within budget first: the filter's one-time start-up work (tokenizer tables) happens
    // here, not inside the deadline under test, where a busy machine would spend the margin on it.
    await request(runtime.app)
      .post('/context/filter/inlet')
      .set(runtime.auth)
      .send({ body: { model: 'gpt-4o', messages: orderChat(1), metadata: { chat_id: 'warm' } }, user: { id: 'u' } })
      .expect(200);
    expect(server.chatCalls()).toBe(0);
  });
  afterAll(async () => {
    await runtime.dispose();
    await server.close();
  });

  it('falls back to dropping before the host answers 504, even when summary_timeout_ms is longer', async () => {
    const messages = orderChat(14);
    const response = await request(runtime.app)
      .post('/context/filter/inlet')
      .set(runtime.auth)
      .send({ body: { model: 'gpt-4o', messages, metadata: { chat_id: 'slow' } }, user: { id: 'u' } });
    expect(response.status).toBe(200);
    expect(server.chatCalls()).toBeGreaterThan(0);
    expect(
      response.body.messages.some((message: { content?: string }) => String(message.content).includes('too late')),
    ).toBe(false);
    expect(promptTokens(response.body.messages)).toBeLessThanOrEqual(700);
  });
});

describe('model-assisted scoring slower than the hook timeout', () => {
  let runtime: TestRuntime;
  let server: LoopbackServer;
  beforeAll(async () => {
    // Embeddings answer long after the hook timeout; no summarizer (summaries are the other test's subject).
    server = await startLoopback(() => ({ ...chatReply('too late'), delayMs: 60_000 }));
    runtime = await createTestRuntime({ filters: ['context.ts'], env: { HOOK_TIMEOUT_MS: '8000' } });
    await request(runtime.app)
      .post('/context/valves/update')
      .set(runtime.auth)
      .send({
        max_tokens: '700',
        weighting: 'static',
        scoring: 'embedding',
        embedding_model: 'embed-small',
        summary_base_url: server.url,
        summary_model: 'mini',
        summary_min_budget: '100000',
        scoring_timeout_ms: '20000',
        summary_retries: '0',
        ahead_of_time: 'false',
      })
      .expect(200);
  });
  afterAll(async () => {
    await runtime.dispose();
    await server.close();
  });

  it('falls back to keyword scoring before the host answers 504, even when scoring_timeout_ms is longer', async () => {
    const response = await request(runtime.app)
      .post('/context/filter/inlet')
      .set(runtime.auth)
      .send({
        body: { model: 'gpt-4o', messages: orderChat(14), metadata: { chat_id: 'slow-scoring' } },
        user: { id: 'u' },
      });
    expect(response.status).toBe(200);
    expect(server.embeddingCalls()).toBeGreaterThan(0);
    expect(promptTokens(response.body.messages)).toBeLessThanOrEqual(700);
  });
});
