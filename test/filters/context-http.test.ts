import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countMessageTokens, loadEncoder, REPLY_PRIMING_TOKENS } from '../../src/domain/engine/index.js';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import type { Message } from './helpers/flag-chats.js';

const topics = ['database migration', 'kubernetes ingress', 'billing invoices', 'cat photos', 'holiday plans'];

/** A long chat: each turn asks about one topic with filler so the history exceeds a small budget. */
function longChat(turns: number): Message[] {
  const messages: Message[] = [{ role: 'system', content: 'You are a helpful assistant.' }];
  for (let turn = 0; turn < turns; turn++) {
    const topic = topics[turn % topics.length]!;
    messages.push({
      role: 'user',
      content: `Question ${turn} about the ${topic}: ${'please explain the details '.repeat(12)}`,
    });
    messages.push({
      role: 'assistant',
      content: `Answer ${turn} on the ${topic}: ${'here are the relevant details '.repeat(14)}`,
    });
  }
  return messages;
}

function promptTokens(messages: Message[]): number {
  const encoder = loadEncoder('o200k_base');
  return messages.reduce((sum, message) => sum + countMessageTokens(message, encoder), REPLY_PRIMING_TOKENS);
}

describe('context filter over HTTP', () => {
  let runtime: TestRuntime;
  const user = { id: 'u1', email: 'u1@example.com', name: 'U', role: 'user' };

  const inlet = (body: Record<string, unknown>) =>
    request(runtime.app).post('/context/filter/inlet').set(runtime.auth).send({ body, user }).expect(200);
  const outlet = (body: Record<string, unknown>) =>
    request(runtime.app).post('/v1/context/filter/outlet').set(runtime.auth).send({ body, user }).expect(200);

  beforeAll(async () => {
    runtime = await createTestRuntime({ filters: ['context.ts'] });
    await request(runtime.app)
      .post('/context/valves/update')
      .set(runtime.auth)
      .send({ max_tokens: '1200' })
      .expect(200);
  });
  afterAll(async () => runtime.dispose());

  it('trims an over-budget history to the budget, keeping the system prompt, the last user message and kept messages byte-for-byte', async () => {
    const messages = longChat(30);
    expect(promptTokens(messages)).toBeGreaterThan(4000);
    const response = await inlet({
      model: 'gpt-4o',
      messages,
      metadata: { chat_id: 'chat-trim' },
      stream: true,
      custom_key: 1,
    });
    const sent = response.body.messages as Message[];
    expect(promptTokens(sent)).toBeLessThanOrEqual(1200);
    expect(sent[0]).toEqual(messages[0]);
    expect(sent.at(-1)).toEqual(messages.at(-1));
    expect(sent[1]!.role).toBe('user');
    for (const message of sent) expect(messages).toContainEqual(message);
    expect(response.body.custom_key).toBe(1);
    expect(response.body.stream).toBe(true);
  });

  it('passes Open WebUI task requests (titles, tags) through untouched', async () => {
    const body = { model: 'gpt-4o', messages: longChat(30), metadata: { task: 'title_generation', chat_id: 'c' } };
    const response = await inlet(body);
    expect(response.body).toEqual(body);
  });

  it('!full sends the whole history this turn only, and the flag block is stripped', async () => {
    const messages = longChat(20);
    messages.push({ role: 'user', content: '!full What did we decide?' });
    const full = await inlet({ model: 'gpt-4o', messages, metadata: { chat_id: 'chat-full' } });
    expect(full.body.messages).toHaveLength(messages.length);
    expect(full.body.messages.at(-1).content).toBe('What did we decide?');
    const next = [...messages, { role: 'assistant', content: 'We decided X.' }, { role: 'user', content: 'And then?' }];
    const after = await inlet({ model: 'gpt-4o', messages: next, metadata: { chat_id: 'chat-full' } });
    expect(after.body.messages.length).toBeLessThan(next.length);
  });

  it('!pin keeps the message that carried it on later turns, also after a restart', async () => {
    const messages = longChat(2);
    // Long and off-topic, so nothing but the pin can keep it under this budget.
    messages.push({
      role: 'user',
      content: `!pin The launch code is ZEBRA-42. ${'Unrelated filler text. '.repeat(30)}`,
    });
    messages.push({ role: 'assistant', content: 'Noted.' });
    messages.push(...longChat(25).slice(1));
    const first = await inlet({ model: 'gpt-4o', messages, metadata: { chat_id: 'chat-pin' } });
    const kept = (first.body.messages as Message[]).map((message) => message.content);
    const pinned = `The launch code is ZEBRA-42. ${'Unrelated filler text. '.repeat(30)}`;
    expect(kept).toContain(pinned);
    runtime = await runtime.restart();
    const later = [
      ...messages,
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: 'Tell me about cat photos again' },
    ];
    const second = await inlet({ model: 'gpt-4o', messages: later, metadata: { chat_id: 'chat-pin' } });
    expect((second.body.messages as Message[]).map((message) => message.content)).toContain(pinned);
    // Control: the same history without the pin loses that message under this budget.
    const unpinned = later.map((message) =>
      message.content === `!pin ${pinned}` ? { ...message, content: pinned } : message,
    );
    const control = await inlet({ model: 'gpt-4o', messages: unpinned, metadata: { chat_id: 'chat-nopin' } });
    expect((control.body.messages as Message[]).map((message) => message.content)).not.toContain(pinned);
  });

  it('!context=2 sends only the last two turns', async () => {
    await request(runtime.app).post('/context/valves/update').set(runtime.auth).send({ max_tokens: '0' }).expect(200);
    const messages = longChat(6);
    messages.push({ role: 'user', content: '!context=2 Summarise the last answers' });
    const response = await inlet({ model: 'gpt-4o', messages, metadata: { chat_id: 'chat-ctx' } });
    const chat = (response.body.messages as Message[]).filter((message) => message.role !== 'system');
    expect(chat.filter((message) => message.role === 'user')).toHaveLength(2);
    expect(chat[0]!.role).toBe('user');
    await request(runtime.app)
      .post('/context/valves/update')
      .set(runtime.auth)
      .send({ max_tokens: '1200' })
      .expect(200);
  });

  it('on outlet, !flags lists the persistent flags and a rejected value is reported, keeping ids', async () => {
    const messages: Message[] = [
      { role: 'user', content: '!+nosum,+recent=6 hello', id: 'm1' },
      { role: 'assistant', content: 'hi', id: 'm2' },
      { role: 'user', content: '!flags,recent=abc what now?', id: 'm3' },
    ];
    await inlet({
      model: 'gpt-4o',
      messages: messages.map(({ id: _id, ...rest }) => rest),
      metadata: { chat_id: 'chat-show' },
    });
    const outletBody = {
      model: 'gpt-4o',
      chat_id: 'chat-show',
      session_id: 's1',
      id: 'm4',
      messages: [...messages, { role: 'assistant', content: 'Here you go.', id: 'm4', timestamp: 1 }],
    };
    const response = await outlet(outletBody);
    const reply = response.body.messages.at(-1);
    expect(reply.id).toBe('m4');
    expect(reply.content.startsWith('Here you go.')).toBe(true);
    expect(reply.content).toMatch(/nosum/);
    expect(reply.content).toMatch(/recent/);
    expect(reply.content).toMatch(/abc/);
    expect(response.body.chat_id).toBe('chat-show');
    expect(response.body.session_id).toBe('s1');
    expect(response.body.messages.map((message: Message) => message.id)).toEqual(['m1', 'm2', 'm3', 'm4']);
  });
});

describe('context filter outlet keeps the user messages as typed', () => {
  it('does not strip flag blocks from the outlet body Open WebUI saves', async () => {
    const runtime = await createTestRuntime({ filters: ['context.ts'] });
    try {
      const body = {
        model: 'gpt-4o',
        chat_id: 'c-keep',
        session_id: 's',
        id: 'a2',
        messages: [
          { id: 'u1', role: 'user', content: '!+nosum hello' },
          { id: 'a1', role: 'assistant', content: 'hi' },
          { id: 'u2', role: 'user', content: '!full' },
          { id: 'a2', role: 'assistant', content: 'done' },
        ],
      };
      const response = await request(runtime.app)
        .post('/context/filter/outlet')
        .set(runtime.auth)
        .send({ body, user: { id: 'u' } })
        .expect(200);
      expect(response.body).toEqual(body);
    } finally {
      await runtime.dispose();
    }
  });
});
