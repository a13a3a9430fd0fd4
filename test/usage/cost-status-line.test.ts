import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';

// Replies carry the provider's own cost as OpenRouter reports it: `usage.cost` in USD credits beside the token counts
// (https://openrouter.ai/docs/use-cases/usage-accounting, "Response Format", read 2026-12).
function outletBody(chatId: string, messageId: string, cost: number) {
  return {
    model: 'openai/gpt-4o',
    chat_id: chatId,
    id: messageId,
    messages: [
      { id: `${messageId}-q`, role: 'user', content: 'What is the plan?' },
      {
        id: messageId,
        role: 'assistant',
        content: 'The plan has three steps.',
        usage: { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100, cost },
      },
    ],
  };
}

type Event = { type: string; data: { description?: string; done?: boolean } };
const costLines = (events: Event[]) =>
  events.filter((event) => event.data.description?.startsWith('this reply')).map((event) => event.data);

describe.each(['off', 'worker'] as const)('the cost status line after a reply (FILTER_ISOLATION=%s)', (isolation) => {
  let runtime: TestRuntime;
  const outlet = (payload: Record<string, unknown>) =>
    request(runtime.app).post('/integrations/open-webui/outlet').set(runtime.auth).send(payload).expect(200);

  beforeAll(async () => {
    runtime = await createTestRuntime({
      filters: ['accounting.ts', 'spend-limit.ts'],
      env: { FILTER_ISOLATION: isolation },
    });
    await request(runtime.app)
      .post('/spend-limit/valves/update')
      .set(runtime.auth)
      .send({ daily_limit_usd: 2, monthly_limit_usd: 20 })
      .expect(200);
  });
  afterAll(async () => runtime?.dispose());

  it("gives the reply's cost and the user's day and month against the caps in force, from the ledger", async () => {
    const user = { id: 'ann', email: 'ann@example.com', role: 'user' };
    const first = await outlet({ body: outletBody('c1', 'm1', 0.0123), user });
    expect(costLines(first.body.events)).toEqual([
      { description: 'this reply $0.0123 · today $0.0123 of $2.00 · month $0.0123 of $20.00', done: true },
    ]);
    const second = await outlet({ body: outletBody('c1', 'm2', 0.44), user });
    expect(costLines(second.body.events)).toEqual([
      { description: 'this reply $0.4400 · today $0.4523 of $2.00 · month $0.4523 of $20.00', done: true },
    ]);
  });

  it('names only the caps that apply: none for an exempt role, a user override where one is set', async () => {
    const admin = await outlet({ body: outletBody('c2', 'm3', 0.5), user: { id: 'root', role: 'admin' } });
    expect(costLines(admin.body.events)).toEqual([
      { description: 'this reply $0.5000 · today $0.5000 · month $0.5000', done: true },
    ]);
    await request(runtime.app)
      .post('/spend-limit/valves/update')
      .set(runtime.auth)
      .send({ daily_limit_usd: 2, monthly_limit_usd: 20, user_limits: { 'bo@example.com': { daily_usd: 0 } } })
      .expect(200);
    const bo = await outlet({
      body: outletBody('c3', 'm4', 1.25),
      user: { id: 'bo', email: 'bo@example.com', role: 'user' },
    });
    expect(costLines(bo.body.events)).toEqual([
      { description: 'this reply $1.25 · today $1.25 · month $1.25 of $20.00', done: true },
    ]);
  });

  it("is turned off by the user's cost_status valve, and on again when the admin's default is off", async () => {
    const user = { id: 'cy', role: 'user' };
    const off = await outlet({
      body: outletBody('c4', 'm5', 0.01),
      user,
      user_valves: { accounting: { cost_status: 'off' } },
    });
    expect(costLines(off.body.events)).toEqual([]);
    await request(runtime.app)
      .post('/accounting/valves/update')
      .set(runtime.auth)
      .send({ show_cost_status: false })
      .expect(200);
    try {
      const byDefault = await outlet({ body: outletBody('c4', 'm6', 0.01), user });
      expect(costLines(byDefault.body.events)).toEqual([]);
      const on = await outlet({
        body: outletBody('c4', 'm7', 0.01),
        user,
        user_valves: { accounting: { cost_status: 'on' } },
      });
      expect(costLines(on.body.events)).toEqual([
        { description: 'this reply $0.0100 · today $0.0300 of $2.00 · month $0.0300 of $20.00', done: true },
      ]);
    } finally {
      await request(runtime.app)
        .post('/accounting/valves/update')
        .set(runtime.auth)
        .send({ show_cost_status: true })
        .expect(200);
    }
  });
});
