import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { planContext } from '../../src/domain/engine/index.js';
import { loadConfig } from '../../src/core/config.js';
import { createRuntime, type Runtime } from '../../src/compose.js';
import { createLogger } from '../../src/core/util/logger.js';
import { copyShippedFilter, TEST_API_KEY } from '../helpers/create-test-runtime.js';
import {
  embeddingReply,
  startLoopback,
  summaryInput,
  type LoopbackServer,
  type Script,
} from '../llm/helpers/loopback-openai.js';
import { faithfulSummary, orderChat, promptTokens, type Message } from '../compress/helpers/order-chat.js';

const MODEL_KEY = 'sk-live-DO-NOT-LOG-7c1e99';
const BUDGET = 800;
const logs: string[] = [];
const root = mkdtempSync(path.join(os.tmpdir(), 'eunoe-summarize-'));
const config = loadConfig(
  {
    FILTER_LOAD_TIMEOUT_MS: '60000', // a liveness bound for worker imports on a busy machine
    PIPELINES_API_KEY: TEST_API_KEY,
    LOG_LEVEL: 'debug',
    WATCH_FILTERS: 'false',
    PRICING_FETCH: 'false',
    SHIPPED_FILTERS: 'none',
  },
  root,
);
const logger = createLogger({
  level: 'debug',
  destination: new Writable({
    write: (chunk, _encoding, done) => {
      logs.push(String(chunk));
      done();
    },
  }),
});
const user = { id: 'u1', email: 'u1@example.com', name: 'U', role: 'user' };
const auth = { Authorization: `Bearer ${TEST_API_KEY}` };

let runtime: Runtime;
let server: LoopbackServer;
const inlet = async (messages: unknown[], chatId: string) =>
  (
    await request(runtime.app)
      .post('/context/filter/inlet')
      .set(auth)
      .send({ body: { model: 'gpt-4o', messages, metadata: { chat_id: chatId } }, user })
      .expect(200)
  ).body.messages as Message[];
const outlet = (messages: unknown[], chatId: string) =>
  request(runtime.app)
    .post('/context/filter/outlet')
    .set(auth)
    .send({ body: { model: 'gpt-4o', messages, chat_id: chatId }, user })
    .expect(200);
let current: Record<string, unknown> = {};
/** Updates valves (the route replaces the whole set, so the values so far are resent). */
const valves = (values: Record<string, unknown>) => {
  current = { ...current, ...values };
  return request(runtime.app).post('/context/valves/update').set(auth).send(current).expect(200);
};
const blockOf = (messages: Message[]) =>
  messages.find((message) => message.role === 'system' && message.content.startsWith('[Earlier in this conversation'));
const calls = async <T>(work: () => Promise<T>): Promise<{ result: T; calls: number }> => {
  const before = server.chatCalls();
  const result = await work();
  return { result, calls: server.chatCalls() - before };
};

/** Waits until no ahead-of-time job holds the chat's lease (it is released when the job ends). */
async function aheadOfTimeDone(chatId: string): Promise<void> {
  for (let round = 0; round < 500; round++) {
    const lease = await runtime.store.acquireLease(`f:context:aot:chat:${chatId}`, 1000);
    if (lease) return lease.release();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('ahead-of-time job never finished');
}

async function start(): Promise<void> {
  runtime = await createRuntime({ config, logger, watch: false });
}

beforeAll(async () => {
  server = await startLoopback(faithfulSummary);
  mkdirSync(path.join(root, 'filters'), { recursive: true });
  writeFileSync(path.join(root, 'package.json'), '{"type":"module"}\n');
  copyShippedFilter('context.ts', path.join(root, 'filters'));
  await start();
  // Static weighting: what is summarized depends on budget and recency only, not on engine keyword tuning.
  await valves({
    max_tokens: String(BUDGET),
    summary_min_budget: 0,
    weighting: 'static',
    summary_base_url: server.url,
    summary_model: 'mini',
    summary_api_key: MODEL_KEY,
    ahead_of_time: false,
  });
});
afterAll(async () => {
  await runtime.close();
  await server.close();
  rmSync(root, { recursive: true, force: true });
});
beforeEach(() => {
  server.script = (seen) =>
    seen.path.endsWith('/embeddings') ? embeddingReply(seen.body.input) : faithfulSummary(seen);
});

describe('context filter with a summarizer, over HTTP', () => {
  it('replaces over-budget history by one visible summary block within budget; cached across requests and restarts', async () => {
    const messages = orderChat(12);
    const first = await calls(() => inlet(messages, 'sum-1'));
    expect(first.calls).toBe(2);
    const block = blockOf(first.result)!;
    expect(block.content).toMatch(/^\[Earlier in this conversation — 12 messages summarized\]/);
    expect(block.content).toContain('order ORD-1000, budget $100');
    expect(first.result[0]).toEqual(messages[0]);
    expect(first.result.indexOf(block)).toBe(1);
    expect(first.result.at(-1)).toEqual(messages.at(-1));
    expect(promptTokens(first.result)).toBeLessThanOrEqual(BUDGET);
    const second = await calls(() => inlet(messages, 'sum-1'));
    expect(second.calls).toBe(0);
    expect(second.result).toEqual(first.result);
    await runtime.close();
    await start();
    const afterRestart = await calls(() => inlet(messages, 'sum-other-chat'));
    expect(afterRestart.calls).toBe(0);
    expect(afterRestart.result).toEqual(first.result);
  });

  it('!nosum drops as without a summarizer, with no model call', async () => {
    const messages = orderChat(12, '!nosum what is the status of everything?');
    const { result, calls: made } = await calls(() => inlet(messages, 'sum-nosum'));
    expect(made).toBe(0);
    expect(blockOf(result)).toBeUndefined();
    expect(result.at(-1)!.content).toBe('what is the status of everything?');
    expect(promptTokens(result)).toBeLessThanOrEqual(BUDGET);
  });

  it('without a configured summarizer the result is exactly the dropping plan', async () => {
    await valves({ summary_base_url: '' });
    const messages = orderChat(14);
    const { result, calls: made } = await calls(() => inlet(messages, 'sum-none'));
    expect(made).toBe(0);
    await valves({ summary_base_url: server.url });
    const valveDefaults = {
      algorithm: 'recency',
      weighting: 'static',
      recencyFactor: 1.5,
      recent: 4,
      toolPenalty: 0.5,
      pairCoherence: 0.8,
      minChatMessages: 1,
    } as const;
    expect(result).toEqual(
      planContext({ messages, model: 'gpt-4o', options: { ...valveDefaults, maxTokens: BUDGET } }).messages,
    );
  });

  it('a failing summarizer (500) falls back to dropping; the inlet still answers within budget', async () => {
    server.script = () => ({ status: 500, json: { error: 'down' } });
    const fresh = orderChat(13).map((message) =>
      message.role === 'system' ? message : { ...message, content: `${message.content} again` },
    );
    const result = await inlet(fresh, 'sum-down');
    expect(blockOf(result)).toBeUndefined();
    expect(promptTokens(result)).toBeLessThanOrEqual(BUDGET);
    expect(logs.join('')).toMatch(/failed \(model API answered 500/);
  });

  it('summarizing in an inlet stops at its deadline: no retry after it, dropped instead', async () => {
    await valves({ summary_timeout_ms: 300, summary_retries: 5 });
    server.script = () => ({ status: 429, headers: { 'retry-after': '1' }, json: { error: 'slow down' } });
    const fresh = orderChat(13).map((message) =>
      message.role === 'system' ? message : { ...message, content: `${message.content} (third shop)` },
    );
    const first = server.requests.length;
    try {
      const result = await inlet(fresh, 'sum-deadline');
      const transcripts = server.requests.slice(first).map((seen) => summaryInput(seen));
      expect(transcripts.length).toBeGreaterThan(0);
      expect(new Set(transcripts).size).toBe(transcripts.length); // each summary tried once: the 1 s Retry-After lies past the deadline
      expect(blockOf(result)).toBeUndefined();
      expect(promptTokens(result)).toBeLessThanOrEqual(BUDGET);
    } finally {
      await valves({ summary_timeout_ms: 20000, summary_retries: 2 });
    }
  });

  it('ahead of time: after the outlet, the next inlet finds its summaries cached and makes no model call', async () => {
    await valves({ ahead_of_time: true });
    const history = orderChat(15, 'how are the orders going?');
    await inlet(history, 'sum-aot');
    const withReply = [
      ...history,
      { role: 'assistant', content: 'all orders are on track and nothing needs your attention right now' },
    ];
    const background = await calls(async () => {
      await outlet(withReply, 'sum-aot');
      await aheadOfTimeDone('sum-aot');
    });
    expect(background.calls).toBeGreaterThan(0);
    const next = await calls(() =>
      inlet([...withReply, { role: 'user', content: 'how are the payments going?' }], 'sum-aot'),
    );
    expect(next.calls).toBe(0);
    expect(blockOf(next.result)).toBeDefined();
    expect(promptTokens(next.result)).toBeLessThanOrEqual(BUDGET);
    await valves({ ahead_of_time: false });
  });

  it('an inlet arriving while the background job of its chat still runs waits for it instead of summarizing the same text twice', async () => {
    await valves({ ahead_of_time: true });
    const history = orderChat(17, 'anything new on the orders?').map((message) =>
      message.role === 'system' ? message : { ...message, content: `${message.content} (second shop)` },
    );
    const slow: Script = (seen) => ({ ...faithfulSummary(seen), delayMs: 200 });
    server.script = slow;
    const withReply = [...history, { role: 'assistant', content: 'the orders of the second shop are fine' }];
    const first = server.requests.length;
    await outlet(withReply, 'sum-settle');
    const next = await inlet([...withReply, { role: 'user', content: 'and the second shop payments?' }], 'sum-settle');
    await aheadOfTimeDone('sum-settle');
    const bodies = server.requests.slice(first).map((seen) => summaryInput(seen).split('\n').slice(1).join('\n')); // the transcript, without the size line
    expect(bodies.length).toBeGreaterThan(0);
    expect(new Set(bodies).size).toBe(bodies.length);
    expect(blockOf(next)).toBeDefined();
    await valves({ ahead_of_time: false });
  });

  it('ahead of time: a job uses the valves in force at its outlet, not those of the first outlet (its timeout here)', async () => {
    await valves({ ahead_of_time: true });
    // A first job builds the background runner with the default timeout (120 s).
    const warm = orderChat(15, 'what is new with the warehouse?');
    await outlet([...warm, { role: 'assistant', content: 'the warehouse is fine' }], 'sum-aot-valves-1');
    await aheadOfTimeDone('sum-aot-valves-1');
    // Now a timeout shorter than the model takes: the next job must be cut off, leaving nothing cached.
    await valves({ ahead_of_time_timeout_ms: 1000 });
    const slow: Script = (seen) => ({ ...faithfulSummary(seen), delayMs: 4000 });
    server.script = slow;
    try {
      const history = orderChat(15, 'and the deliveries?').map((message) =>
        message.role === 'system' ? message : { ...message, content: `${message.content} (deliveries)` },
      );
      const withReply = [...history, { role: 'assistant', content: 'deliveries are on time' }];
      await outlet(withReply, 'sum-aot-valves-2');
      await aheadOfTimeDone('sum-aot-valves-2');
      server.script = faithfulSummary;
      const next = await calls(() =>
        inlet([...withReply, { role: 'user', content: 'and the late ones?' }], 'sum-aot-valves-2'),
      );
      expect(next.calls).toBeGreaterThan(0);
    } finally {
      await valves({ ahead_of_time: false, ahead_of_time_timeout_ms: 120000 });
    }
  });

  it('embedding scoring runs through the same client and falls back to keywords when the model errors', async () => {
    await valves({ scoring: 'embedding', embedding_model: 'embed-small' });
    const before = server.embeddingCalls();
    const scored = await inlet(orderChat(12, 'what budget did order ORD-1003 have?'), 'sum-embed');
    expect(server.embeddingCalls()).toBe(before + 1);
    expect(
      server.requests.at(-3)?.body?.model === 'embed-small' ||
        server.requests.some((seen) => seen.body?.model === 'embed-small'),
    ).toBe(true);
    expect(promptTokens(scored)).toBeLessThanOrEqual(BUDGET);
    const failing: Script = (seen) =>
      seen.path.endsWith('/embeddings') ? { status: 400, json: { error: 'no such model' } } : faithfulSummary(seen);
    server.script = failing;
    const fallback = await inlet(orderChat(12, 'what budget did order ORD-1004 have?'), 'sum-embed-2');
    expect(promptTokens(fallback)).toBeLessThanOrEqual(BUDGET);
    expect(logs.join('')).toMatch(/model-assisted scoring failed/);
    await valves({ scoring: 'none' });
  });

  it('never writes the model API key to the logs, even when the server echoes it in an error', async () => {
    server.script = () => ({ status: 401, json: { error: { message: `Incorrect API key provided: ${MODEL_KEY}` } } });
    await inlet(orderChat(16), 'sum-key');
    await valves({ scoring: 'llm' });
    await inlet(orderChat(16, 'which order had the largest budget?'), 'sum-key-2');
    await valves({ scoring: 'none' });
    const text = logs.join('');
    expect(text).toMatch(/401/);
    expect(text).toContain('[redacted]');
    expect(text).not.toContain(MODEL_KEY);
    expect(text).not.toContain(MODEL_KEY.slice(3));
  });
});
