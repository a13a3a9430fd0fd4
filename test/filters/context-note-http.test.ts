import request from 'supertest';
import { stripContextNotes } from '../../src/domain/notes/context-note-line.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { fillerText, promptTokens, SimulatedChat, SYSTEM, type Message } from './helpers/flag-chats.js';

/**
 * `show_context_note` (admin boolean, user 'default' | 'on' | 'off') through the real HTTP inlet
 * and outlet: the inlet remembers, per chat and turn, what it saw and sent; the outlet appends
 * one line under the reply. The numbers are checked against what the inlet actually returned.
 */
describe('context filter: show_context_note over HTTP', () => {
  let runtime: TestRuntime;
  const MAX = 700;
  const NOTE = /^context: /;
  const TRIMMED = /^context: ([\d,]+) → ([\d,]+) tokens · ([\d,]+) of ([\d,]+) messages left out$/;
  const WHOLE = /^context: ([\d,]+) tokens · all ([\d,]+) messages sent$/;
  const num = (text: string) => Number(text.replace(/,/g, ''));
  const fmt = (value: number) => value.toLocaleString('en-US');

  let userId = 'u-note';
  const user = () => ({ id: userId, email: `${userId}@example.com`, name: 'N', role: 'user' });

  const inlet = async (messages: Message[], chatId: string): Promise<Message[]> => {
    const response = await request(runtime.app)
      .post('/context/filter/inlet')
      .set(runtime.auth)
      .send({ body: { model: 'gpt-4o', messages, metadata: { chat_id: chatId } }, user: user() })
      .expect(200);
    return response.body.messages as Message[];
  };
  /** The outlet as Open WebUI calls it: the history (user message last) plus the reply; returns the reply as it comes back. */
  const outlet = async (history: Message[], chatId: string, reply = 'Sure.'): Promise<string> => {
    const body = { model: 'gpt-4o', chat_id: chatId, messages: [...history, { role: 'assistant', content: reply }] };
    const response = await request(runtime.app)
      .post('/context/filter/outlet')
      .set(runtime.auth)
      .send({ body, user: user() })
      .expect(200);
    const messages = response.body.messages as Message[];
    expect(messages).toHaveLength(history.length + 1);
    return messages.at(-1)!.content as string;
  };
  const setValves = async (values: Record<string, string | number | boolean>) => {
    const form = Object.fromEntries(
      Object.entries({ max_tokens: MAX, recent: 4, algorithm: 'recency', weighting: 'keyword', ...values }).map(
        ([key, value]) => [key, String(value)],
      ),
    );
    await request(runtime.app).post('/context/valves/update').set(runtime.auth).send(form).expect(200);
  };
  const setUserNote = async (value: 'default' | 'on' | 'off') => {
    const response = await request(runtime.app)
      .post('/context/valves/user/update')
      .query({ user_id: userId })
      .set(runtime.auth)
      .send({ show_context_note: value })
      .expect(200);
    expect(response.body.show_context_note).toBe(value);
  };
  /** The note lines of a reply (the reply itself is the first line). */
  const noteLines = (reply: string) => reply.split('\n').filter((line) => NOTE.test(line));

  /** Plays `count` turns; the last one's inlet output is returned with the history at that moment (user message last). */
  async function play(chatId: string, count: number, start: Message[] = [SYSTEM]) {
    const chat = new SimulatedChat(inlet, chatId, start);
    await chat.turns(count - 1);
    const sent = await chat.turn();
    const history = chat.history.slice(0, -1); // without the reply SimulatedChat appended
    return { chat, sent, history };
  }

  beforeAll(async () => {
    runtime = await createTestRuntime({ filters: ['context.ts'] });
  });
  afterAll(async () => runtime.dispose());

  it('is off by default: the outlet returns the reply unchanged', async () => {
    userId = 'u-note-default';
    const spec = await request(runtime.app).get('/context/valves/spec').set(runtime.auth).expect(200);
    expect(spec.body.properties.show_context_note).toMatchObject({ type: 'boolean', default: false });
    const userSpec = await request(runtime.app).get('/context/valves/user/spec').set(runtime.auth).expect(200);
    expect(userSpec.body.properties.show_context_note).toMatchObject({ default: 'default' });
    await setValves({});
    const { history } = await play('note-off', 12);
    expect(await outlet(history, 'note-off', 'Sure.')).toBe('Sure.');
  });

  it('admin on: a trimmed turn gets "before → after tokens · X of N messages left out" matching what the inlet sent', async () => {
    userId = 'u-note-admin';
    await setValves({ show_context_note: true });
    const { sent, history } = await play('note-trim', 30);
    const reply = await outlet(history, 'note-trim', 'Sure.');
    expect(reply.startsWith('Sure.\n\n')).toBe(true);
    const lines = noteLines(reply);
    expect(lines).toHaveLength(1);
    expect(reply.split('\n').at(-1)).toBe(lines[0]);
    const match = TRIMMED.exec(lines[0]!);
    expect(match, lines[0]).not.toBeNull();
    const [, before, after, leftOut, total] = match!;
    const chatHistory = history.filter((message) => message.role !== 'system');
    const sentChat = sent.filter((message) => message.role !== 'system');
    // Tokens: before is the whole history, after what the inlet returned, both counted like the engine (gpt-4o).
    expect(num(before!)).toBe(promptTokens(history));
    expect(num(after!)).toBe(promptTokens(sent));
    expect(num(after!)).toBeLessThanOrEqual(MAX);
    expect(num(before!)).toBeGreaterThan(1000);
    expect(before).toBe(fmt(num(before!))); // thousands separated: "4,012"
    // Messages: every chat message of the history, and those the inlet did not send.
    expect(num(total!)).toBe(chatHistory.length);
    expect(num(leftOut!)).toBe(chatHistory.length - sentChat.length);
    expect(num(leftOut!)).toBeGreaterThan(0);
    expect(lines[0]).not.toMatch(/summarized/); // no summarizer: the part is left out
  });

  it('admin on: a turn that fits gets "N tokens · all M messages sent"', async () => {
    userId = 'u-note-admin';
    await setValves({ show_context_note: true });
    const { sent, history } = await play('note-whole', 3);
    expect(sent).toEqual(history);
    const lines = noteLines(await outlet(history, 'note-whole'));
    expect(lines).toEqual([`context: ${fmt(promptTokens(history))} tokens · all ${history.length - 1} messages sent`]);
    expect(lines[0]).toMatch(WHOLE);
  });

  it('the user valve overrides the admin: "off" hides it while the admin is on, "on" shows it while the admin is off', async () => {
    userId = 'u-note-override';
    await setValves({ show_context_note: true });
    await setUserNote('off');
    const off = await play('note-user-off', 12);
    expect(await outlet(off.history, 'note-user-off', 'Sure.')).toBe('Sure.');

    await setValves({ show_context_note: false });
    await setUserNote('on');
    const on = await play('note-user-on', 12);
    const lines = noteLines(await outlet(on.history, 'note-user-on', 'Sure.'));
    expect(lines).toHaveLength(1);
    const match = TRIMMED.exec(lines[0]!)!;
    expect(num(match[2]!)).toBe(promptTokens(on.sent));
    expect(num(match[3]!)).toBe(on.history.length - on.sent.length);

    // Back to 'default': the admin's off applies again, and another user is not affected by this one's choice.
    await setUserNote('default');
    const back = await play('note-user-default', 12);
    expect(await outlet(back.history, 'note-user-default', 'Sure.')).toBe('Sure.');
    await setUserNote('on');
    userId = 'u-note-someone-else';
    const other = await play('note-user-other', 12);
    expect(await outlet(other.history, 'note-user-other', 'Sure.')).toBe('Sure.');
  });

  it('only the chat and turn the inlet saw get a line: another chat id, or a turn without an inlet, get none', async () => {
    userId = 'u-note-match';
    await setValves({ show_context_note: true });
    const { chat, history } = await play('note-match', 12);
    // Another chat id with the very same history: nothing stored for it.
    expect(await outlet(history, 'note-match-other', 'Sure.')).toBe('Sure.');
    // A later turn of the same chat that never went through the inlet.
    const unseen: Message[] = [...chat.history, { role: 'user', content: fillerText('u', 13) }];
    expect(await outlet(unseen, 'note-match', 'Sure.')).toBe('Sure.');
    // The turn that did go through the inlet still gets its line (exactly one).
    expect(noteLines(await outlet(history, 'note-match', 'Sure.'))).toHaveLength(1);
  });

  it('replies saved with their note (as Open WebUI stores the outlet’s output) still get the right note on every later turn', async () => {
    userId = 'u-note-saved';
    await setValves({ show_context_note: true });
    const history: Message[] = [SYSTEM];
    for (let turn = 1; turn <= 14; turn++) {
      history.push({ role: 'user', content: fillerText('u', turn) });
      const sent = await inlet(history, 'note-saved');
      // Earlier notes are removed before planning: the model never sees (or pays for) them.
      const seen = stripContextNotes(history) as Message[];
      expect(sent.every((message) => noteLines(String(message.content)).length === 0)).toBe(true);
      const reply = await outlet(history, 'note-saved', fillerText('a', turn));
      const lines = noteLines(reply);
      expect(lines).toHaveLength(1);
      const trimmed = TRIMMED.exec(lines[0]!);
      const whole = WHOLE.exec(lines[0]!);
      expect(trimmed ?? whole, lines[0]).not.toBeNull();
      if (trimmed) {
        expect(num(trimmed[1]!)).toBe(promptTokens(seen));
        expect(num(trimmed[2]!)).toBe(promptTokens(sent));
        expect(num(trimmed[3]!)).toBe(history.length - sent.length);
        expect(num(trimmed[4]!)).toBe(history.length - 1);
      } else {
        expect(sent).toEqual(seen);
        expect(num(whole![1]!)).toBe(promptTokens(seen));
      }
      history.push({ role: 'assistant', content: reply });
    }
    expect(noteLines(String(history.at(-1)!.content))[0]).toMatch(TRIMMED);
  });

  it('cache_stable: the note says how much of the prompt repeats the previous one, as sent; it is stripped later', async () => {
    userId = 'u-note-cache';
    await setValves({ show_context_note: true, algorithm: 'cache_stable' });
    const REPEATS = / · (\d+)% of the prompt repeats the previous one$/;
    const chat = new SimulatedChat(inlet, 'note-cache');
    let checked = 0;
    let highest = 0;
    for (let turn = 1; turn <= 24; turn++) {
      const sent = await chat.turn();
      const history = chat.history.slice(0, -1);
      const [line] = noteLines(await outlet(history, 'note-cache', 'Sure.'));
      if (turn === 1) {
        expect(line).not.toMatch(REPEATS); // no previous prompt yet
        continue;
      }
      const match = REPEATS.exec(line ?? '');
      expect(match, line).not.toBeNull();
      // The leading messages sent again unchanged, in tokens (each message's own, without the reply priming).
      const previous = chat.sent.at(-2)!;
      let shared = 0;
      while (
        shared < Math.min(previous.length, sent.length) &&
        JSON.stringify(previous[shared]) === JSON.stringify(sent[shared])
      )
        shared += 1;
      const repeated = shared === 0 ? 0 : promptTokens(sent.slice(0, shared)) - promptTokens([]);
      expect(Number(match![1])).toBe(Math.round((100 * repeated) / promptTokens(sent)));
      if (TRIMMED.test(line!.replace(REPEATS, ''))) {
        checked += 1;
        highest = Math.max(highest, Number(match![1]));
      }
    }
    expect(checked).toBeGreaterThan(5); // trimmed turns with the share
    expect(highest).toBeGreaterThan(30); // and the core carried over
    // A reply saved with such a note loses it before the next plan.
    const noted = `Sure.\n\ncontext: 1,234 → 700 tokens · 20 of 40 messages left out · 63% of the prompt repeats the previous one`;
    expect(stripContextNotes([{ role: 'assistant', content: noted }])).toEqual([
      { role: 'assistant', content: 'Sure.' },
    ]);
    await setValves({ show_context_note: true });
  });

  it('each turn gets its own numbers; flag blocks in user messages do not break the turn matching', async () => {
    userId = 'u-note-flags';
    await setValves({ show_context_note: true });
    const chat = new SimulatedChat(inlet, 'note-flags');
    await chat.turns(11);
    // `!recent=2 …`: the flag block is stripped for the model, kept as typed in the history.
    const flagged = await chat.turn({ prefix: '!recent=2 ' });
    const flaggedHistory = chat.history.slice(0, -1);
    expect(flaggedHistory.at(-1)!.content).toBe(`!recent=2 ${fillerText('u', 12)}`);
    expect(flagged.at(-1)!.content).toBe(fillerText('u', 12));
    const flaggedLine = noteLines(await outlet(flaggedHistory, 'note-flags', 'Sure.'));
    expect(flaggedLine).toHaveLength(1);
    const flaggedMatch = TRIMMED.exec(flaggedLine[0]!)!;
    expect(flaggedMatch, flaggedLine[0]).not.toBeNull();
    expect(num(flaggedMatch[2]!)).toBe(promptTokens(flagged));
    expect(num(flaggedMatch[3]!)).toBe(flaggedHistory.length - flagged.length);
    // The model saw the stripped text: "before" counts the history without the block.
    const stripped = flaggedHistory.map((message, index) =>
      index === flaggedHistory.length - 1 ? { ...message, content: fillerText('u', 12) } : message,
    );
    expect(num(flaggedMatch[1]!)).toBe(promptTokens(stripped));

    // A flags-only message (`!+pin`) is still a turn; the next turn with no block matches too.
    const pinned = await chat.turn({ text: '', prefix: '!+pin' });
    expect(pinned.at(-1)!.content).toBe('(continue)');
    const pinnedHistory = chat.history.slice(0, -1);
    const pinnedMatch = TRIMMED.exec(noteLines(await outlet(pinnedHistory, 'note-flags', 'Sure.'))[0] ?? '');
    expect(pinnedMatch).not.toBeNull();
    expect(num(pinnedMatch![2]!)).toBe(promptTokens(pinned));
    expect(num(pinnedMatch![4]!)).toBe(pinnedHistory.length - 1);

    const plain = await chat.turn();
    const plainHistory = chat.history.slice(0, -1);
    const plainMatch = TRIMMED.exec(noteLines(await outlet(plainHistory, 'note-flags', 'Sure.'))[0] ?? '');
    expect(plainMatch).not.toBeNull();
    expect(num(plainMatch![2]!)).toBe(promptTokens(plain));
    expect(num(plainMatch![3]!)).toBe(plainHistory.length - plain.length);
    expect(num(plainMatch![4]!)).toBe(plainHistory.length - 1);
    // The earlier turn's note is still its own (not overwritten by later turns).
    expect(noteLines(await outlet(flaggedHistory, 'note-flags', 'Sure.'))).toEqual(flaggedLine);
  });
});
