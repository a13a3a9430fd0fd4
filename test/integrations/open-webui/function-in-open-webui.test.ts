import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countMessageTokens, loadEncoder, REPLY_PRIMING_TOKENS } from '../../../src/domain/engine/index.js';
import { createTestRuntime, TEST_API_KEY, type TestRuntime } from '../../helpers/create-test-runtime.js';
import { listenOnLoopback, type LoopbackHttp } from '../../helpers/loopback-server.js';
import { runFunction, type Json, type Step } from './run-loader.js';

const MODEL = 'openai/gpt-4o';
const alice = { id: 'alice', email: 'alice@example.com', name: 'Alice', role: 'user', settings: {}, info: null };
const bob = { id: 'bob', email: 'bob@example.com', name: 'Bob', role: 'user', settings: {}, info: null };

const tokens = (messages: Json[]) =>
  messages.reduce((sum, message) => sum + countMessageTokens(message, loadEncoder('o200k_base')), REPLY_PRIMING_TOKENS);

/** A 40-turn chat, as Open WebUI's inlet body carries it. */
function longChat(chatId: string, question: string): Json {
  const messages: Json[] = [{ role: 'system', content: 'You are a helpful assistant.' }];
  for (let turn = 0; turn < 40; turn++) {
    messages.push({ role: 'user', content: `Turn ${turn}: ${'tell me about the migration plan '.repeat(8)}` });
    messages.push({
      role: 'assistant',
      content: `Reply ${turn}: ${'the migration has several careful steps '.repeat(10)}`,
    });
  }
  messages.push({ role: 'user', content: question });
  return {
    model: MODEL,
    stream: true,
    messages,
    metadata: { chat_id: chatId, message_id: `${chatId}-a41`, session_id: 's1', user_id: 'x', task: null },
  };
}

/** The outlet body of Open WebUI 0.10+ for a reply with provider usage. */
function outletBody(chatId: string, messageId: string, cost: number): Json {
  return {
    model: MODEL,
    chat_id: chatId,
    session_id: 's1',
    id: messageId,
    messages: [
      { id: 'u1', role: 'user', content: 'What is the plan?', timestamp: 1 },
      {
        id: messageId,
        role: 'assistant',
        content: 'The plan has three steps.',
        timestamp: 2,
        usage: { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100, cost },
      },
    ],
  };
}

describe('the generated Function loaded and called the way Open WebUI does, against a real Eunoe on loopback', () => {
  let runtime: TestRuntime;
  let server: LoopbackHttp;
  let source: string;
  let valves: Json;

  beforeAll(async () => {
    runtime = await createTestRuntime({
      filters: ['context.ts', 'accounting.ts', 'spend-limit.ts', 'system-prefix.ts', 'turn-limit.ts'],
    });
    const admin = (id: string, values: Json) =>
      request(runtime.app).post(`/${id}/valves/update`).set(runtime.auth).send(values).expect(200);
    await admin('context', { max_tokens: 6000 });
    // High enough for the inlets every test makes (each holds an estimate until its outlet or a timeout).
    await admin('spend-limit', { daily_limit_usd: 2 });
    await admin('turn-limit', { pipelines: ['*'], max_turns: 100 });
    server = await listenOnLoopback(runtime.app);
    const file = await fetch(`${server.origin}/integrations/open-webui/function.py`, {
      headers: { authorization: `Bearer ${TEST_API_KEY}` },
    });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toMatch(/text\/x-python/);
    source = await file.text();
    valves = { eunoe_url: server.origin, eunoe_api_key: TEST_API_KEY, timeout_s: 20 };
  });
  afterAll(async () => {
    await server?.close();
    await runtime?.dispose();
  });

  it('loads as a Filter with frontmatter, untouched by the import rewriting, its default URL the one it was fetched from', async () => {
    const result = await runFunction(source, {}, []);
    expect(result.kind).toBe('filter');
    expect(result.imports_rewritten).toBe(false);
    expect(result.frontmatter).toMatchObject({ title: 'Eunoe' });
    expect(result.frontmatter.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(result.frontmatter.requirements).toBeUndefined();
    expect(result.toggle).toBe(false);
    expect(result.valves_schema.properties.eunoe_url.default).toBe(server.origin);
    expect(result.valves_schema.properties.on_error.enum).toEqual(['pass', 'block']);
    expect(Object.keys(result.user_valves_schema?.properties ?? {})).toEqual(
      expect.arrayContaining(['context_max_tokens', 'context_default_flags', 'system_prefix_prefix']),
    );
  });

  it("applies the budget a user set in Open WebUI's UI to that user only, and shows the decision as a status line", async () => {
    const body = longChat('chat-budget', 'What was decided about the migration?');
    const result = await runFunction(source, valves, [
      { hook: 'inlet', body, user: alice, user_valves: { context_max_tokens: 900, context_recent: null } },
      { hook: 'inlet', body, user: bob, user_valves: null },
    ]);
    const [mine, theirs] = result.steps;
    expect(mine!.ok).toBe(true);
    expect(theirs!.ok).toBe(true);
    expect(tokens(mine!.body!.messages)).toBeLessThanOrEqual(900);
    expect(tokens(theirs!.body!.messages)).toBeGreaterThan(900);
    expect(tokens(theirs!.body!.messages)).toBeLessThanOrEqual(6000);
    // The question stays last, the metadata object is Open WebUI's own.
    expect(mine!.body!.messages.at(-1).content).toBe('What was decided about the migration?');
    expect(mine!.body!.metadata).toEqual(body.metadata);
    const status = mine!.events.map((event) => event.data?.description);
    expect(mine!.events.every((event) => event.type === 'status' && event.data.done === true)).toBe(true);
    expect(status.find((text) => text.startsWith('context:'))).toMatch(
      /^context: [\d,]+ → [\d,]+ tokens · \d+ of 81 messages left out$/,
    );
  });

  it('strips a !flag, persists it per chat, and says so in a status line', async () => {
    const body = longChat('chat-flags', '!+recent=4 And the rollback?');
    const result = await runFunction(source, valves, [{ hook: 'inlet', body, user: alice }]);
    const step = result.steps[0]!;
    expect(step.ok).toBe(true);
    expect(step.body!.messages.at(-1).content).toBe('And the rollback?');
    expect(step.events.map((event) => event.data.description)).toContainEqual(
      expect.stringMatching(/^⚑ Eunoe flags: \+recent=4/),
    );
  });

  it('passes an Open WebUI task (title generation) through unchanged', async () => {
    const body = {
      model: MODEL,
      messages: [{ role: 'user', content: 'Generate a concise title for this chat.' }],
      stream: false,
      metadata: { task: 'title_generation', chat_id: 'chat-task' },
    };
    const result = await runFunction(source, valves, [{ hook: 'inlet', body, user: alice }]);
    expect(result.steps[0]).toMatchObject({ ok: true, body });
    expect(result.steps[0]!.events.filter((event) => event.data.description.startsWith('context:'))).toEqual([]);
  });

  it('records a reply once when the Pipelines connection also sends its outlet, and changes only what a filter asks', async () => {
    await request(runtime.app)
      .post('/accounting/valves/update')
      .set(runtime.auth)
      .send({ show_usage: true })
      .expect(200);
    try {
      const body = outletBody('chat-once', 'a-once', 0.001);
      const result = await runFunction(source, valves, [{ hook: 'outlet', body, user: { ...alice, id: 'carol' } }]);
      const step = result.steps[0]!;
      expect(step.ok).toBe(true);
      expect(step.body!.messages[0]).toEqual(body.messages[0]);
      expect(step.body!.messages[1].content).toMatch(/^The plan has three steps\.\n\n.*1,000 in · 100 out/s);
      expect(step.body!.messages[1].usage).toEqual(body.messages[1].usage);
      expect(step.body).toMatchObject({ chat_id: 'chat-once', session_id: 's1', id: 'a-once' });
      // The same reply through the Pipelines connection (Open WebUI with both configured).
      await request(runtime.app)
        .post('/accounting/filter/outlet')
        .set(runtime.auth)
        .send({ body, user: { id: 'carol', role: 'user' } })
        .expect(200);
      const usage = await request(runtime.app).get('/usage?user=carol').set(runtime.auth).expect(200);
      expect(usage.body.totals).toMatchObject({ records: 1, promptTokens: 1000, completionTokens: 100 });
    } finally {
      await request(runtime.app)
        .post('/accounting/valves/update')
        .set(runtime.auth)
        .send({ show_usage: false })
        .expect(200);
    }
  });

  it("shows each reply's cost and the user's day and month against their cap as a status line, unless they turn it off", async () => {
    const user = { ...alice, id: 'erin' };
    const result = await runFunction(source, valves, [
      { hook: 'outlet', body: outletBody('chat-cost', 'a-cost-1', 0.0123), user },
      {
        hook: 'outlet',
        body: outletBody('chat-cost', 'a-cost-2', 0.44),
        user,
        user_valves: { accounting_cost_status: null },
      },
      {
        hook: 'outlet',
        body: outletBody('chat-cost', 'a-cost-3', 0.01),
        user,
        user_valves: { accounting_cost_status: 'off' },
      },
    ]);
    expect(result.user_valves_schema?.properties.accounting_cost_status.enum).toEqual(['default', 'on', 'off']);
    const lines = result.steps.map((step) =>
      step.events.filter((event) => event.data.description.startsWith('this reply')),
    );
    // The daily cap is the spend-limit filter's (set above); no monthly cap is set, so the month shows its spend alone.
    expect(lines[0]).toEqual([
      {
        type: 'status',
        data: { description: 'this reply $0.0123 · today $0.0123 of $2.00 · month $0.0123', done: true },
      },
    ]);
    expect(lines[1]).toEqual([
      {
        type: 'status',
        data: { description: 'this reply $0.4400 · today $0.4523 of $2.00 · month $0.4523', done: true },
      },
    ]);
    expect(lines[2]).toEqual([]);
    expect(result.steps.every((step) => step.ok)).toBe(true);
  });

  it("shows a spend limit's refusal in the chat as the exception's message, whatever on_error says", async () => {
    const user = { ...alice, id: 'dave' };
    const spent = await runFunction(source, valves, [
      { hook: 'outlet', body: outletBody('chat-spend', 'a-spend', 2.5), user },
    ]);
    expect(spent.steps[0]!.ok).toBe(true);
    const result = await runFunction(source, { ...valves, on_error: 'pass' }, [
      { hook: 'inlet', body: longChat('chat-spend', 'One more question?'), user },
    ]);
    const step = result.steps[0]!;
    expect(step.ok).toBe(false);
    expect(step.error).toMatch(/daily budget of \$2(\.00)? is used up/i);
  });

  it("refuses a turn past the user's own lower turn limit, and only that user's", async () => {
    const body = longChat('chat-turns', 'Turn 41?');
    const result = await runFunction(source, valves, [
      { hook: 'inlet', body, user: alice, user_valves: { turn_limit_max_turns: 5 } },
      { hook: 'inlet', body, user: bob },
    ]);
    expect(result.steps[0]).toMatchObject({ ok: false });
    expect(result.steps[0]!.error).toBe(
      'Conversation turn limit exceeded: this chat has 41 turns and the limit is 5. Start a new chat.',
    );
    expect(result.steps[1]!.ok).toBe(true);
  });

  it('refuses a user valve that fails the filter schema with a clear 400 and runs nothing', async () => {
    const body = longChat('chat-bad', 'Hello?');
    const response = await request(runtime.app)
      .post('/integrations/open-webui/inlet')
      .set(runtime.auth)
      .send({ body, user: { id: 'erin' }, user_valves: { context: { max_tokens: -5 } } })
      .expect(400);
    expect(response.body).toMatchObject({ code: 'ERR_VALIDATION' });
    expect(response.body.detail).toMatch(/user_valves\.context\.max_tokens/);
    const unknown = await request(runtime.app)
      .post('/integrations/open-webui/inlet')
      .set(runtime.auth)
      .send({ body, user: { id: 'erin' }, filters: ['contxt'] })
      .expect(400);
    expect(unknown.body.detail).toMatch(/contxt/);
  });

  it('runs only the filters the admin lists in the "filters" valve', async () => {
    const body = longChat('chat-only', 'Only the prefix please?');
    await request(runtime.app)
      .post('/system-prefix/valves/update')
      .set(runtime.auth)
      .send({ prefix: 'Be brief.' })
      .expect(200);
    const result = await runFunction(source, { ...valves, filters: 'system-prefix' }, [
      { hook: 'inlet', body, user: alice },
    ]);
    const step = result.steps[0]!;
    expect(step.ok).toBe(true);
    expect(step.body!.messages).toHaveLength(body.messages.length);
    expect(step.body!.messages[0].content).toMatch(/^Be brief\./);
    expect(step.events).toEqual([]);
  });

  it('with Eunoe down: on_error=pass sends the body unchanged with a warning status, block stops the chat; the key never shows', async () => {
    const closed = await listenOnLoopback(() => undefined);
    const url = closed.origin;
    await closed.close();
    const body = longChat('chat-down', 'Are you there?');
    const down = { ...valves, eunoe_url: url };
    const passed = await runFunction(source, { ...down, on_error: 'pass' }, [{ hook: 'inlet', body, user: alice }]);
    expect(passed.steps[0]).toMatchObject({ ok: true, body });
    expect(passed.steps[0]!.events[0]!.data.description).toMatch(/^Eunoe unavailable \(cannot reach/);
    const blocked = await runFunction(source, { ...down, on_error: 'block' }, [{ hook: 'inlet', body, user: alice }]);
    expect(blocked.steps[0]!.ok).toBe(false);
    expect(blocked.steps[0]!.error).toMatch(/^Eunoe is unavailable \(cannot reach/);
    const outlet = await runFunction(source, down, [
      { hook: 'outlet', body: outletBody('c', 'a-down', 0), user: alice },
    ]);
    expect(outlet.steps[0]!.ok).toBe(true);
    expect(outlet.steps[0]!.events[0]!.data.description).toMatch(/not recorded/);
    // A wrong key is a failure too (never a refusal), and the key appears nowhere.
    const wrongKey = await runFunction(source, { ...valves, eunoe_api_key: 'not-the-key-123' }, [
      { hook: 'inlet', body, user: alice },
    ]);
    expect(wrongKey.steps[0]!.ok).toBe(true);
    expect(wrongKey.steps[0]!.events[0]!.data.description).toMatch(/HTTP 401/);
    const everything = JSON.stringify([passed, blocked, outlet, wrongKey]);
    expect(everything).not.toContain(TEST_API_KEY);
    expect(everything).not.toContain('not-the-key-123');
  });

  it('stays within timeout_s when Eunoe does not answer', async () => {
    const silent = await listenOnLoopback(() => undefined); // accepts, never answers
    try {
      const result = await runFunction(source, { ...valves, eunoe_url: silent.origin, timeout_s: 1 }, [
        { hook: 'inlet', body: longChat('chat-slow', 'Hello?'), user: alice },
      ]);
      const step = result.steps[0]!;
      expect(step.ok).toBe(true);
      expect(step.events[0]!.data.description).toMatch(/no answer within 1 s/);
      expect(step.seconds).toBeLessThan(5); // a bound on a hang, not a speed measurement
    } finally {
      await silent.close();
    }
  });

  it('rendered with toggle, runs only in chats where the user switched it on', async () => {
    const file = await request(runtime.app)
      .get(`/integrations/open-webui/function.py?toggle=true&url=${encodeURIComponent(server.origin)}`)
      .set(runtime.auth)
      .expect(200);
    const body = longChat('chat-toggle', 'Is it on?');
    const steps: Step[] = [
      { hook: 'inlet', body, user: alice, filter_ids: [] },
      { hook: 'inlet', body, user: alice, filter_ids: ['eunoe'] },
    ];
    const result = await runFunction(file.text, valves, steps);
    expect(result.toggle).toBe(true);
    expect(result.steps[0]).toMatchObject({ ok: true, skipped: true });
    expect(result.steps[1]!.skipped).toBeUndefined();
    expect(result.steps[1]!.events.length).toBeGreaterThan(0);
  });
});
