import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countMessageTokens, loadEncoder, REPLY_PRIMING_TOKENS } from '../../src/domain/engine/index.js';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';

// biome-ignore lint/suspicious/noExplicitAny: Open WebUI bodies read field by field in assertions, without a schema
type Body = Record<string, any>;
type Filter = { id: string; pipeline: { type: string; pipelines: string[]; priority: number } };

/**
 * Open WebUI's side of the protocol, as OW-pipes does it: read /models, keep the filters that
 * target the chat model, sort them by priority, and fold the body through every inlet; on
 * outlet, the same order. Every shipped filter is loaded.
 */
class OpenWebUiSimulator {
  constructor(private readonly runtime: TestRuntime) {}

  private async filters(model: string): Promise<Filter[]> {
    const response = await request(this.runtime.app).get('/models').set(this.runtime.auth).expect(200);
    expect(response.body.pipelines).toBe(true);
    return (response.body.data as Filter[])
      .filter((entry) => entry.pipeline.type === 'filter')
      .filter((entry) =>
        entry.pipeline.pipelines.length === 1 && entry.pipeline.pipelines[0] === '*'
          ? true
          : entry.pipeline.pipelines.includes(model),
      )
      .sort((a, b) => a.pipeline.priority - b.pipeline.priority);
  }

  async run(hook: 'inlet' | 'outlet', body: Body, user: Body): Promise<{ status: number; body: Body }> {
    let current = body;
    for (const filter of await this.filters(String(body.model))) {
      const response = await request(this.runtime.app)
        .post(`/${filter.id}/filter/${hook}`)
        .set(this.runtime.auth)
        .send({ user, body: current });
      if (response.status !== 200) return { status: response.status, body: response.body };
      expect(response.headers['content-type']).toMatch(/application\/json/);
      current = response.body;
    }
    return { status: 200, body: current };
  }
}

const tokens = (messages: Body[]) =>
  messages.reduce((sum, message) => sum + countMessageTokens(message, loadEncoder('o200k_base')), REPLY_PRIMING_TOKENS);

describe('an Open WebUI chat through every shipped filter', () => {
  let runtime: TestRuntime;
  let owui: OpenWebUiSimulator;
  const user = { id: 'alice', email: 'alice@example.com', name: 'Alice', role: 'user' };

  beforeAll(async () => {
    runtime = await createTestRuntime({
      filters: ['context.ts', 'accounting.ts', 'spend-limit.ts', 'system-prefix.ts', 'turn-limit.ts'],
    });
    owui = new OpenWebUiSimulator(runtime);
    const admin = (id: string, values: Body) =>
      request(runtime.app).post(`/${id}/valves/update`).set(runtime.auth).send(values).expect(200);
    await admin('context', { max_tokens: '1500' });
    await admin('accounting', { show_usage: 'true' });
    await admin('spend-limit', { daily_limit_usd: '0.02' });
    await admin('system-prefix', { prefix: 'Company policy: be kind.' });
    await request(runtime.app)
      .post('/system-prefix/valves/user/update?user_id=alice')
      .set(runtime.auth)
      .send({ prefix: 'Answer in French.', enabled: 'true' })
      .expect(200);
  });
  afterAll(async () => runtime.dispose());

  it('inlet: flags stripped, prefix added, history within budget; outlet: usage line and ledger; then the spend limit blocks', async () => {
    const history: Body[] = [{ role: 'system', content: 'You are a helpful assistant.' }];
    for (let turn = 0; turn < 25; turn++) {
      history.push({
        id: `u${turn}`,
        role: 'user',
        content: `Turn ${turn}: ${'tell me about the migration plan '.repeat(6)}`,
      });
      history.push({
        id: `a${turn}`,
        role: 'assistant',
        content: `Reply ${turn}: ${'the migration plan has several steps '.repeat(8)}`,
      });
    }
    const question = { role: 'user', content: '!+recent=6 What was decided about the migration?' };
    const inletBody = {
      model: 'openai/gpt-4o',
      stream: true,
      messages: [...history.map(({ id: _id, ...message }) => message), question],
      metadata: { chat_id: 'chat-e2e', message_id: 'a25', session_id: 's1', user_id: 'alice' },
    };
    const inlet = await owui.run('inlet', inletBody, user);
    expect(inlet.status).toBe(200);
    const sent = inlet.body.messages as Body[];
    expect(sent[0]!.content).toBe('Company policy: be kind.\nAnswer in French.\n\nYou are a helpful assistant.');
    expect(sent.at(-1)!.content).toBe('What was decided about the migration?');
    expect(tokens(sent)).toBeLessThanOrEqual(1500); // system-prefix (priority -10) runs first, so its text is counted
    expect(sent.slice(-7, -1).map((message) => message.content)).toEqual(
      inletBody.messages.slice(-7, -1).map((message) => message.content),
    );
    expect(inlet.body.metadata).toEqual(inletBody.metadata);

    const reply = {
      id: 'a25',
      role: 'assistant',
      content: 'We decided to migrate in three steps.',
      timestamp: 1,
      usage: { prompt_tokens: 1480, completion_tokens: 120, total_tokens: 1600, cost: 0.015 },
    };
    const outletBody = {
      model: 'openai/gpt-4o',
      chat_id: 'chat-e2e',
      session_id: 's1',
      id: 'a25',
      messages: [...history, { id: 'u25', role: 'user', content: question.content }, reply],
    };
    const outlet = await owui.run('outlet', outletBody, user);
    expect(outlet.status).toBe(200);
    const last = outlet.body.messages.at(-1);
    expect(last.id).toBe('a25');
    expect(last.content).toMatch(/^We decided to migrate in three steps\.\n\n.*1,480 in · 120 out · \$0\.015/s);
    expect(outlet.body.messages.at(-2).content).toBe(question.content); // the user's text is saved as typed
    expect(outlet.body).toMatchObject({ chat_id: 'chat-e2e', session_id: 's1', id: 'a25' });
    // A repeated outlet (Open WebUI retrying) must not count twice.
    await owui.run('outlet', outletBody, user);
    const usage = await request(runtime.app).get('/usage?user=alice').set(runtime.auth).expect(200);
    expect(usage.body.totals).toMatchObject({ records: 1, promptTokens: 1480, completionTokens: 120, cost: '0.015' });

    // Alice spent $0.015 of her $0.02 day: the next turn is still allowed; after a second reply it is blocked.
    const second = { ...reply, id: 'a26', usage: { ...reply.usage, cost: 0.01 } };
    await owui.run(
      'outlet',
      {
        ...outletBody,
        id: 'a26',
        messages: [...outletBody.messages, { id: 'u26', role: 'user', content: 'and then?' }, second],
      },
      user,
    );
    const blocked = await owui.run(
      'inlet',
      { ...inletBody, messages: [...inletBody.messages, { role: 'user', content: 'one more?' }] },
      user,
    );
    expect(blocked.status).toBe(429);
    expect(blocked.body.detail).toMatch(/daily budget of \$0\.02 is used up/i);
    // Title generation (a task) counts but is never blocked.
    const task = await owui.run(
      'inlet',
      {
        model: 'openai/gpt-4o',
        messages: [{ role: 'user', content: 'Generate a title' }],
        stream: false,
        metadata: { task: 'title_generation', chat_id: 'chat-e2e' },
      },
      user,
    );
    expect(task.status).toBe(200);
  });
});

describe('a chat without a chat id (API callers, temporary chats) through the chain', () => {
  it('the context filter still sees the persistent flag set in the first message after earlier filters stripped it', async () => {
    const runtime = await createTestRuntime({ filters: ['context.ts', 'spend-limit.ts', 'system-prefix.ts'] });
    try {
      await request(runtime.app)
        .post('/context/valves/update')
        .set(runtime.auth)
        .send({ max_tokens: '300' })
        .expect(200);
      const owui = new OpenWebUiSimulator(runtime);
      const messages: Body[] = [{ role: 'user', content: `!+full ${'first question words '.repeat(20)}` }];
      for (let turn = 0; turn < 6; turn++) {
        messages.push({ role: 'assistant', content: `reply ${turn} ${'words '.repeat(40)}` });
        messages.push({ role: 'user', content: `question ${turn} ${'more words '.repeat(20)}` });
      }
      const result = await owui.run(
        'inlet',
        { model: 'm', messages, metadata: { chat_id: 'local' } },
        { id: 'bob', role: 'user' },
      );
      expect(result.status).toBe(200);
      expect(result.body.messages).toHaveLength(messages.length);
    } finally {
      await runtime.dispose();
    }
  });
});
