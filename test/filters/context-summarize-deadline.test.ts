import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { chatReply, startLoopback, type LoopbackServer } from '../llm/helpers/loopback-openai.js';
import { orderChat, promptTokens } from '../compress/helpers/order-chat.js';

/** Valves every case shares: a 700-token budget, static weights, the slow model, no retries, no work ahead of time. */
const SHARED_VALVES = {
  max_tokens: '700',
  weighting: 'static',
  summary_model: 'mini',
  summary_retries: '0',
  ahead_of_time: 'false',
};

/**
 * A context filter under an 8 s hook timeout whose model (chat and embeddings) answers long after it (its
 * connection is dropped at close), with `valves` on top of SHARED_VALVES.
 */
function slowModelRuntime(valves: Record<string, string>): {
  runtime: () => TestRuntime;
  server: () => LoopbackServer;
} {
  let runtime: TestRuntime;
  let server: LoopbackServer;
  beforeAll(async () => {
    server = await startLoopback(() => ({ ...chatReply('too late'), delayMs: 60_000 }));
    runtime = await createTestRuntime({ filters: ['context.ts'], env: { HOOK_TIMEOUT_MS: '8000' } });
    await request(runtime.app)
      .post('/context/valves/update')
      .set(runtime.auth)
      .send({ ...SHARED_VALVES, summary_base_url: server.url, ...valves })
      .expect(200);
    // A chat within budget first: the filter's one-time start-up work (tokenizer tables) happens
    // here, not inside the deadline under test, where a busy machine would spend the margin on it.
    await inlet(runtime, 1, 'warm').expect(200);
    expect(server.chatCalls() + server.embeddingCalls()).toBe(0);
  });
  afterAll(async () => {
    await runtime.dispose();
    await server.close();
  });
  return { runtime: () => runtime, server: () => server };
}

function inlet(runtime: TestRuntime, turns: number, chatId: string) {
  return request(runtime.app)
    .post('/context/filter/inlet')
    .set(runtime.auth)
    .send({ body: { model: 'gpt-4o', messages: orderChat(turns), metadata: { chat_id: chatId } }, user: { id: 'u' } });
}

describe('a summarizer slower than the hook timeout', () => {
  const slow = slowModelRuntime({ summary_min_budget: '0', summary_timeout_ms: '20000' });

  it('falls back to dropping before the host answers 504, even when summary_timeout_ms is longer', async () => {
    const response = await inlet(slow.runtime(), 14, 'slow');
    expect(response.status).toBe(200);
    expect(slow.server().chatCalls()).toBeGreaterThan(0);
    expect(
      response.body.messages.some((message: { content?: string }) => String(message.content).includes('too late')),
    ).toBe(false);
    expect(promptTokens(response.body.messages)).toBeLessThanOrEqual(700);
  });
});

describe('model-assisted scoring slower than the hook timeout', () => {
  // Embeddings only: summaries are the other case's subject (the budget is below summary_min_budget).
  const slow = slowModelRuntime({
    scoring: 'embedding',
    embedding_model: 'embed-small',
    summary_min_budget: '100000',
    scoring_timeout_ms: '20000',
  });

  it('falls back to keyword scoring before the host answers 504, even when scoring_timeout_ms is longer', async () => {
    const response = await inlet(slow.runtime(), 14, 'slow-scoring');
    expect(response.status).toBe(200);
    expect(slow.server().embeddingCalls()).toBeGreaterThan(0);
    expect(promptTokens(response.body.messages)).toBeLessThanOrEqual(700);
  });
});
