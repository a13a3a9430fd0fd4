import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { deleteRedisPrefix } from '../usage/helpers/ledger-fixtures.js';
import { createTestRuntime, TEST_API_KEY, type TestRuntime } from '../helpers/create-test-runtime.js';
import { listenOnLoopback, type LoopbackHttp } from '../helpers/loopback-server.js';
import { runFunction, type Json, type Step } from '../integrations/open-webui/run-loader.js';

/**
 * A workspace model through the generated Function, loaded and called the way Open WebUI calls a filter Function
 * (owui_loader.py), against a real Eunoe on loopback. Open WebUI v0.11.3 (backend/open_webui/utils/middleware.py:
 * process_chat_payload and outlet_filter_handler) hands a filter's inlet and outlet `__model__`, the model record
 * with `info.base_model_id`, and `__metadata__`; the outlet body names only the workspace model, without metadata.
 */

const alice = { id: 'alice', email: 'alice@example.com', name: 'Alice', role: 'user', settings: {}, info: null };
/** The model record Open WebUI keeps for a workspace model built on openai/gpt-4o (app.state.MODELS). */
const acme = {
  id: 'acme-assistant',
  name: 'Acme Assistant',
  object: 'model',
  owned_by: 'openai',
  info: { id: 'acme-assistant', base_model_id: 'openai/gpt-4o', name: 'Acme Assistant', params: {}, meta: {} },
};

/** The inlet body of a workspace-model chat; Open WebUI's request metadata carries the model record too. */
function inletBody(chatId: string, messageId: string): Json {
  return {
    model: 'acme-assistant',
    stream: true,
    max_tokens: 200,
    messages: [{ role: 'user', content: 'What is the plan?' }],
    metadata: { chat_id: chatId, message_id: messageId, session_id: 's1', user_id: 'alice', task: null, model: acme },
  };
}

/** Open WebUI 0.10+'s outlet body: the chat's model id, no metadata. */
function outletBody(chatId: string, messageId: string): Json {
  return {
    model: 'acme-assistant',
    chat_id: chatId,
    session_id: 's1',
    id: messageId,
    messages: [
      { id: `${messageId}-q`, role: 'user', content: 'What is the plan?', timestamp: 1 },
      {
        id: messageId,
        role: 'assistant',
        content: 'The plan has three steps.',
        timestamp: 2,
        usage: { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 },
      },
    ],
  };
}

interface Records {
  records: Array<{ messageId: string; cost: string; costSource: string; pricedAs?: string }>;
}

describe('a workspace model through the generated Function', () => {
  let runtime: TestRuntime;
  let server: LoopbackHttp;
  let source: string;
  let valves: Json;

  beforeAll(async () => {
    runtime = await createTestRuntime({ filters: ['accounting.ts', 'spend-limit.ts'] });
    await request(runtime.app)
      .post('/spend-limit/valves/update')
      .set(runtime.auth)
      .send({ monthly_limit_usd: 0.005 })
      .expect(200);
    server = await listenOnLoopback(runtime.app);
    const file = await fetch(`${server.origin}/integrations/open-webui/function.py`, {
      headers: { authorization: `Bearer ${TEST_API_KEY}` },
    });
    source = await file.text();
    valves = { eunoe_url: server.origin, eunoe_api_key: TEST_API_KEY, timeout_s: 20 };
  });
  afterAll(async () => {
    await server?.close();
    await runtime?.dispose();
  });

  it('32 chats near a $0.005 cap: each holds its base model price, 2 pass and the rest are refused', async () => {
    const steps: Step[] = Array.from({ length: 32 }, (_, index) => ({
      hook: 'inlet',
      body: inletBody(`chat-${index}`, `m-${index}`),
      user: alice,
      model: acme,
    }));
    const result = await runFunction(source, valves, steps);
    const passed = result.steps.filter((step) => step.ok);
    // ~$0.0020 held each (about 12 prompt tokens at $2.50 / M + max_tokens 200 at $10 / M): 2 fit under $0.005.
    expect(passed).toHaveLength(2);
    for (const step of result.steps.filter((each) => !each.ok))
      expect(step.error).toMatch(/^Your monthly budget of \$0\.005\d* has \$0\.00\d+ left, less than this request/);
  });

  it("its reply is priced as the base model, from the Function's __model__ (the outlet body has no metadata)", async () => {
    const result = await runFunction(source, valves, [
      // A reply whose inlet Eunoe never saw (nothing kept for it): only the Function's __model__ names the base model.
      { hook: 'outlet', body: outletBody('chat-x', 'm-unseen'), user: alice, model: acme, metadata: {} },
    ]);
    expect(result.steps[0]!.ok).toBe(true);
    const usage = await request(runtime.app).get('/usage?user=alice').set(runtime.auth).expect(200);
    const record = (usage.body as Records).records.find((each) => each.messageId === 'm-unseen');
    // 1,000 prompt tokens at $2.50 / M + 100 completion tokens at $10 / M.
    expect(record).toMatchObject({ costSource: 'computed', pricedAs: 'openai/gpt-4o', cost: '0.0035' });
  });
});

describe('the alias map (MODEL_ALIASES_FILE) for workspace models Open WebUI does not describe', () => {
  let runtime: TestRuntime;
  let folder: string;
  beforeAll(async () => {
    folder = mkdtempSync(path.join(os.tmpdir(), 'eunoe-aliases-'));
    const aliases = path.join(folder, 'aliases.json');
    // The target as an admin writes it: Open WebUI's id of the base model, not the price table's.
    writeFileSync(aliases, JSON.stringify({ 'acme-assistant': 'gpt-4o' }));
    runtime = await createTestRuntime({ filters: ['accounting.ts'], env: { MODEL_ALIASES_FILE: aliases } });
  });
  afterAll(async () => {
    await runtime?.dispose();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('a reply of an aliased model with no base model anywhere is priced as the alias target', async () => {
    await request(runtime.app)
      .post('/accounting/filter/outlet')
      .set(runtime.auth)
      .send({ user: { id: 'bob', role: 'user' }, body: outletBody('chat-b', 'b-1') })
      .expect(200);
    const usage = await request(runtime.app).get('/usage?user=bob').set(runtime.auth).expect(200);
    expect((usage.body as Records).records).toMatchObject([
      { messageId: 'b-1', costSource: 'computed', pricedAs: 'openai/gpt-4o', cost: '0.0035' },
    ]);
  });
});

const redisUrl = inject('redisUrl');

describe.runIf(redisUrl)('a workspace model through the generated Function, two replicas on one Redis', () => {
  const KEY = 'caps-function-key';
  const prefix = `eunoe-test-caps-fn-${randomBytes(4).toString('hex')}:`;
  let root: string;
  let replicas: ServerProcess[] = [];
  let source: string;

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'eunoe-caps-fn-'));
    const valves = path.join(root, 'valves');
    mkdirSync(valves);
    writeFileSync(path.join(valves, 'spend-limit.json'), JSON.stringify({ monthly_limit_usd: 0.005 }));
    const env = (name: string) => ({
      PIPELINES_API_KEY: KEY,
      SHIPPED_FILTERS: 'spend-limit,accounting',
      VALVES_DIR: valves,
      DATA_DIR: path.join(root, name),
      REDIS_URL: redisUrl!,
      REDIS_PREFIX: prefix,
    });
    replicas = await Promise.all([startServerProcess(env('a')), startServerProcess(env('b'))]);
    const file = await fetch(`${replicas[0]!.url}/integrations/open-webui/function.py`, {
      headers: { authorization: `Bearer ${KEY}` },
    });
    source = await file.text();
  }, 120_000);
  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await deleteRedisPrefix(redisUrl!, prefix);
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('inlets on one replica hold the base price (2 of 32 pass), replies on the other are priced, then the cap is used up', async () => {
    const on = (replica: ServerProcess) => ({ eunoe_url: replica.url, eunoe_api_key: KEY, timeout_s: 20 });
    const inlets = await runFunction(
      source,
      on(replicas[0]!),
      Array.from({ length: 32 }, (_, index) => ({
        hook: 'inlet' as const,
        body: inletBody(`r-chat-${index}`, `r-${index}`),
        user: alice,
        model: acme,
      })),
    );
    const passed = inlets.steps.flatMap((step, index) => (step.ok ? [index] : []));
    expect(passed).toEqual([0, 1]);
    const outlets = await runFunction(
      source,
      on(replicas[1]!),
      passed.map((index) => ({
        hook: 'outlet' as const,
        body: outletBody(`r-chat-${index}`, `r-${index}`),
        user: alice,
        model: acme,
        metadata: {},
      })),
    );
    expect(outlets.steps.map((step) => step.ok)).toEqual([true, true]);
    const usage = await fetch(`${replicas[0]!.url}/usage?user=alice`, { headers: { authorization: `Bearer ${KEY}` } });
    const records = ((await usage.json()) as Records).records;
    expect(records.map((record) => [record.messageId, record.pricedAs, record.cost])).toEqual([
      ['r-0', 'openai/gpt-4o', '0.0035'],
      ['r-1', 'openai/gpt-4o', '0.0035'],
    ]);
    // $0.007 recorded: the $0.005 cap is used up for the next chat, on either replica.
    const next = await runFunction(source, on(replicas[1]!), [
      { hook: 'inlet', body: inletBody('r-chat-next', 'r-next'), user: alice, model: acme },
    ]);
    expect(next.steps[0]!.error).toMatch(/^Your monthly budget of \$0\.005 is used up/);
  });
});
