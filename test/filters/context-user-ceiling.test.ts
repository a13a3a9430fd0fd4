import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateMessageOrder } from '../../src/domain/engine/index.js';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { contextInlet, functionInlet as owuiInlet } from './helpers/context-http.js';
import { fillerText, labels, promptTokens, SimulatedChat, SYSTEM, type Message } from './helpers/flag-chats.js';

/**
 * The admin's budget is a ceiling on what users set, unless the admin lets them lift it (`allow_full`): `!recent=N`
 * typed in a message, `!+recent=N` kept for the chat, the user valve `recent`, `default_flags`, pins and keep tags
 * never make the context filter send more than `max_tokens`, and the status line says what was capped. Through the
 * real filter: the Pipelines routes Open WebUI's Pipelines client calls, and the Function's route (what Eunoe's
 * Open WebUI Function calls), which carries the status line back. A 101-message chat of 64-token messages
 * (about 6,500 tokens) against `max_tokens: 500`.
 */
describe('context filter: users cannot lift the admin’s budget unless allow_full', () => {
  let runtime: TestRuntime;
  const MAX = 500;
  const CAPPED = /recent=1000 capped to the admin's budget of 500 tokens/;

  /** A chat of 50 turns plus the current question: 101 chat messages after the system prompt. */
  const history = (current = fillerText('u', 51)): Message[] => {
    const messages: Message[] = [SYSTEM];
    for (let turn = 1; turn <= 50; turn++)
      messages.push(
        { role: 'user', content: fillerText('u', turn) },
        { role: 'assistant', content: fillerText('a', turn) },
      );
    messages.push({ role: 'user', content: current });
    return messages;
  };

  /** The Pipelines inlet, as Open WebUI's Pipelines client calls it (`user.valves` may carry the user's valves). */
  const inlet = (messages: Message[], chatId: string, userId: string, valves?: Record<string, unknown>) =>
    contextInlet(runtime, messages, chatId, { id: userId, role: 'user', ...(valves ? { valves } : {}) });
  /** The Function's inlet: the messages sent and the status line. */
  const functionInlet = (messages: Message[], chatId: string, userId: string, userValves?: Record<string, unknown>) =>
    owuiInlet(runtime, messages, chatId, userId, userValves);
  const setValves = async (values: Record<string, string | number | boolean>) => {
    const form = Object.fromEntries(
      Object.entries({ max_tokens: MAX, recent: 4, max_cost_usd: 0.002, allow_full: false, ...values }).map(
        ([key, value]) => [key, String(value)],
      ),
    );
    await request(runtime.app).post('/context/valves/update').set(runtime.auth).send(form).expect(200);
  };
  const setUserValves = async (userId: string, values: Record<string, string>) => {
    await request(runtime.app)
      .post('/context/valves/user/update')
      .query({ user_id: userId })
      .set(runtime.auth)
      .send({ max_tokens: '', recent: '', default_flags: '', ...values })
      .expect(200);
  };
  /** What the engine guarantees whatever the budget: a valid order, the current question last, system first. */
  const wellFormed = (sent: Message[], current: string) => {
    expect(validateMessageOrder(sent)).toEqual([]);
    expect(sent[0]).toEqual(SYSTEM);
    expect(sent.at(-1)).toEqual({ role: 'user', content: current });
    expect(sent.find((message) => message.role !== 'system')!.role).toBe('user');
  };

  beforeAll(async () => {
    runtime = await createTestRuntime({ filters: ['context.ts'] });
  });
  afterAll(async () => runtime.dispose());

  it('!recent=1000 typed in the message: within 500 tokens, and the status line says it was capped', async () => {
    await setValves({});
    const control = await inlet(history(), 'inline-control', 'u-inline');
    const sent = await inlet(history(`!recent=1000 ${fillerText('u', 51)}`), 'inline', 'u-inline');
    expect(promptTokens(history())).toBeGreaterThan(6000);
    expect(promptTokens(sent)).toBeLessThanOrEqual(MAX);
    wellFormed(sent, fillerText('u', 51));
    // The newest messages that fit, in order: as many as the budget holds, at least as many as the control keeps.
    expect(sent.length).toBeGreaterThanOrEqual(control.length);
    expect(labels(sent)).toEqual(labels(history()).slice(-labels(sent).length));
    const { sent: viaFunction, status } = await functionInlet(
      history(`!recent=1000 ${fillerText('u', 51)}`),
      'inline-fn',
      'u-inline',
    );
    expect(promptTokens(viaFunction)).toBeLessThanOrEqual(MAX);
    expect(status).toMatch(CAPPED);
    expect(status).toMatch(/^context: [\d,]+ → [\d,]+ tokens · \d+ of 101 messages left out · /);
  });

  it('the user valve recent=1000 (stored, inline in the Pipelines envelope, or from the Function) is capped', async () => {
    await setValves({});
    await setUserValves('u-valve', { recent: '1000' });
    const stored = await inlet(history(), 'valve-stored', 'u-valve');
    expect(promptTokens(stored)).toBeLessThanOrEqual(MAX);
    wellFormed(stored, fillerText('u', 51));
    const inline = await inlet(history(), 'valve-inline', 'u-valve-inline', { recent: 1000 });
    expect(promptTokens(inline)).toBeLessThanOrEqual(MAX);
    const { sent, status } = await functionInlet(history(), 'valve-fn', 'u-valve-fn', { recent: 1000 });
    expect(promptTokens(sent)).toBeLessThanOrEqual(MAX);
    expect(status).toMatch(/recent=1000 \(your valves\) capped to the admin's budget of 500 tokens/);
    // A user's own lower max_tokens is the ceiling they are held to, and named as theirs.
    const own = await functionInlet(history(), 'valve-own', 'u-valve-own', { recent: 1000, max_tokens: 300 });
    expect(promptTokens(own.sent)).toBeLessThanOrEqual(300);
    expect(own.status).toMatch(/recent=1000 \(your valves\) capped to your budget of 300 tokens/);
  });

  it('default_flags "recent=1000" (and "+recent=1000") is capped', async () => {
    await setValves({});
    await setUserValves('u-defaults', { default_flags: 'recent=1000' });
    const sent = await inlet(history(), 'defaults', 'u-defaults');
    expect(promptTokens(sent)).toBeLessThanOrEqual(MAX);
    wellFormed(sent, fillerText('u', 51));
    const { sent: viaFunction, status } = await functionInlet(history(), 'defaults-fn', 'u-defaults-fn', {
      default_flags: '+recent=1000',
    });
    expect(promptTokens(viaFunction)).toBeLessThanOrEqual(MAX);
    expect(status).toMatch(/recent=1000 \(your default flags\) capped to the admin's budget of 500 tokens/);
  });

  it('!+recent=1000 kept for the chat stays capped on every later turn', async () => {
    await setValves({});
    const chat = new SimulatedChat((messages, chatId) => inlet(messages, chatId, 'u-persist'), 'persist');
    await chat.turns(20);
    const flagged = await chat.turn({ prefix: '!+recent=1000 ' });
    expect(promptTokens(flagged)).toBeLessThanOrEqual(MAX);
    for (const sent of await chat.turns(5)) {
      expect(promptTokens(sent)).toBeLessThanOrEqual(MAX);
      expect(validateMessageOrder(sent)).toEqual([]);
    }
    // The flag is still in force (persisted): the status line of the next turn names it.
    const next = [...chat.history, { role: 'user', content: fillerText('u', 27) } as Message];
    const { status } = await functionInlet(next, 'persist', 'u-persist');
    expect(status).toMatch(/\+recent=1000 capped to the admin's budget of 500 tokens/);
  });

  it('pins and keep tags on every message are capped too; the newest pins are kept first', async () => {
    await setValves({});
    const pins = new SimulatedChat((messages, chatId) => inlet(messages, chatId, 'u-pin'), 'pins');
    await pins.turns(30, { prefix: '!pin ' });
    const sent = await pins.turn();
    expect(promptTokens(sent)).toBeLessThanOrEqual(MAX);
    expect(labels(sent)).toContain('u30');
    expect(labels(sent)).not.toContain('u01');
    const next = [...pins.history, { role: 'user', content: fillerText('u', 32) } as Message];
    const { status } = await functionInlet(next, 'pins', 'u-pin');
    expect(status).toMatch(/\d+ pinned messages capped to the admin's budget of 500 tokens/);

    const tags = new SimulatedChat((messages, chatId) => inlet(messages, chatId, 'u-tag'), 'tags');
    await tags.turns(30, { prefix: '!tag=keep ' });
    const tagged = await tags.turn({ prefix: '!+keep_tag=keep ' });
    expect(promptTokens(tagged)).toBeLessThanOrEqual(MAX);
  });

  it('max_cost_usd is a ceiling too: recent=1000 held to what $0.001 of gpt-4o input buys', async () => {
    // gpt-4o input at $2.50 per million tokens (pricing/openrouter-snapshot.json, openai/gpt-4o: prompt 0.0000025):
    // $0.001 buys 400 prompt tokens.
    await setValves({ max_tokens: 0, max_cost_usd: 0.001 });
    const { sent, status } = await functionInlet(history(`!recent=1000 ${fillerText('u', 51)}`), 'cost', 'u-cost');
    expect(promptTokens(sent)).toBeLessThanOrEqual(400);
    wellFormed(sent, fillerText('u', 51));
    expect(status).toMatch(/recent=1000 capped to the admin's budget of 400 tokens \(max_cost_usd 0\.001\)/);
  });

  it('with show_context_note the line under the reply says it too, and the model never sees that line', async () => {
    await setValves({ show_context_note: true });
    const typed = history(`!recent=1000 ${fillerText('u', 51)}`);
    await inlet(typed, 'note', 'u-note');
    const response = await request(runtime.app)
      .post('/context/filter/outlet')
      .set(runtime.auth)
      .send({
        body: { model: 'gpt-4o', chat_id: 'note', messages: [...typed, { role: 'assistant', content: 'Sure.' }] },
        user: { id: 'u-note', role: 'user' },
      })
      .expect(200);
    const reply = response.body.messages.at(-1).content as string;
    expect(reply).toMatch(/\ncontext: [\d,]+ → [\d,]+ tokens · \d+ of 101 messages left out · recent=1000 capped to/);
    // Next turn: the reply with its note is history; the note is removed before planning.
    const next = await inlet(
      [...typed, { role: 'assistant', content: reply }, { role: 'user', content: fillerText('u', 52) }],
      'note',
      'u-note',
    );
    expect(next.map((message) => message.content).join('\n')).not.toMatch(/capped to/);
    expect(next.find((message) => message.content?.startsWith('Sure.'))?.content).toBe('Sure.');
  });

  it('!full stays off and says so', async () => {
    await setValves({});
    const { sent, status } = await functionInlet(history(`!full ${fillerText('u', 51)}`), 'full', 'u-full');
    expect(promptTokens(sent)).toBeLessThanOrEqual(MAX);
    expect(status).toMatch(/full capped to the admin's budget of 500 tokens/);
  });

  it('with allow_full the user may exceed the budget as before: every message is sent', async () => {
    await setValves({ allow_full: true });
    const inline = await inlet(history(`!recent=1000 ${fillerText('u', 51)}`), 'allowed-inline', 'u-allowed');
    expect(labels(inline)).toEqual(labels(history()));
    await setUserValves('u-allowed-valve', { recent: '1000' });
    expect(labels(await inlet(history(), 'allowed-valve', 'u-allowed-valve'))).toEqual(labels(history()));
    await setUserValves('u-allowed-defaults', { default_flags: 'recent=1000' });
    expect(labels(await inlet(history(), 'allowed-defaults', 'u-allowed-defaults'))).toEqual(labels(history()));
    const { status } = await functionInlet(history(`!recent=1000 ${fillerText('u', 51)}`), 'allowed-fn', 'u-allowed');
    expect(status).not.toMatch(/capped/);
  });

  it('the admin’s own recent is kept whatever the budget, and a user lowering it is obeyed', async () => {
    // 61 messages of 64 tokens: the admin chose to send them whatever max_tokens says (the plan is over budget).
    await setValves({ recent: 61 });
    const admin = await inlet(history(), 'admin-recent', 'u-admin');
    expect(labels(admin)).toEqual(labels(history()).slice(-61));
    await setUserValves('u-lower', { recent: '2' });
    const lowered = await inlet(history(), 'lower-recent', 'u-lower');
    expect(promptTokens(lowered)).toBeLessThanOrEqual(MAX);
  });

  it('a current message over the budget alone is still sent, and a user-lifted recent adds nothing to it', async () => {
    await setValves({});
    const long = `${fillerText('u', 51)} ${'lengthy detail '.repeat(300)}`.trim();
    const control = await inlet(history(long), 'long-control', 'u-long');
    const lifted = await inlet(history(`!recent=1000 ${long}`), 'long', 'u-long');
    expect(promptTokens(control)).toBeGreaterThan(MAX);
    expect(control.at(-1)).toEqual({ role: 'user', content: long });
    expect(lifted).toEqual(control);
  });
});
