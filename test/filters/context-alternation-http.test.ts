import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alternateRoles } from '../../src/domain/engine/constraints/alternate-roles.js';
import { validateMessageOrder } from '../../src/domain/engine/index.js';
import { createTestRuntime, type TestRuntime } from '../helpers/create-test-runtime.js';
import { contextInlet } from './helpers/context-http.js';
import {
  fillerText,
  labelOf,
  labels,
  promptTokens,
  SimulatedChat,
  SYSTEM,
  type Message,
} from './helpers/flag-chats.js';
import type { ChatMessage } from '../../src/core/messages/chat-message.js';

const hasCalls = (message: ChatMessage) => Array.isArray(message.tool_calls) && message.tool_calls.length > 0;
const plain = (message: ChatMessage, role: 'user' | 'assistant') => message.role === role && !hasCalls(message);

/** Positions where a plain message of `role` follows another plain one of the same role. */
function adjacent(messages: readonly ChatMessage[], role: 'user' | 'assistant'): number[] {
  return messages.flatMap((message, index) =>
    index > 0 && plain(message, role) && plain(messages[index - 1]!, role) ? [index] : [],
  );
}

/** Every assistant tool_calls message is followed by exactly its results, and every result follows its call. */
function expectToolPairsIntact(messages: readonly ChatMessage[]) {
  expect(validateMessageOrder(messages)).toEqual([]);
  messages.forEach((message, index) => {
    if (!hasCalls(message)) return;
    const ids = message.tool_calls!.map((call) => call.id).sort();
    const results = messages.slice(index + 1, index + 1 + ids.length);
    expect(results.map((result) => result.role)).toEqual(ids.map(() => 'tool'));
    expect(results.map((result) => result.tool_call_id).sort()).toEqual(ids);
  });
}

describe('alternateRoles (unit)', () => {
  it('merges adjacent plain user strings with a blank line and returns the merged count', () => {
    const input = [
      SYSTEM,
      { role: 'user', content: 'first' },
      { role: 'user', content: 'second' },
      { role: 'user', content: 'third' },
      { role: 'assistant', content: 'reply' },
    ];
    const snapshot = structuredClone(input);
    const { messages, merged } = alternateRoles(input);
    expect(merged).toBe(2);
    expect(messages).toEqual([
      SYSTEM,
      { role: 'user', content: 'first\n\nsecond\n\nthird' },
      { role: 'assistant', content: 'reply' },
    ]);
    expect(input).toEqual(snapshot); // not mutated
    expect(messages[0]).toBe(input[0]); // untouched messages are the same objects
    expect(messages[2]).toBe(input[4]);
    expect(messages[1]).not.toBe(input[1]);
  });

  it('merges adjacent plain assistant messages, keeping the first one’s other fields', () => {
    const first = { role: 'assistant', content: 'a', name: 'bot', extra: 1 };
    const { messages, merged } = alternateRoles([
      { role: 'user', content: 'q' },
      first,
      { role: 'assistant', content: 'b', name: 'other' },
    ]);
    expect(merged).toBe(1);
    expect(messages[1]).toEqual({ role: 'assistant', content: 'a\n\nb', name: 'bot', extra: 1 });
    expect(first).toEqual({ role: 'assistant', content: 'a', name: 'bot', extra: 1 });
  });

  it('concatenates parts arrays; string + parts becomes parts', () => {
    const image = { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } };
    const partsFirst = [{ type: 'text', text: 'look' }, image];
    const { messages } = alternateRoles([
      { role: 'user', content: partsFirst },
      { role: 'user', content: [{ type: 'text', text: 'and this' }] },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: 'plain' },
      { role: 'user', content: [image] },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: [{ type: 'text', text: 'parts' }] },
      { role: 'user', content: 'then a string' },
    ]);
    expect(messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'look' }, image, { type: 'text', text: 'and this' }] },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: [{ type: 'text', text: 'plain' }, image] },
      { role: 'assistant', content: 'ok' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'parts' },
          { type: 'text', text: 'then a string' },
        ],
      },
    ]);
    expect(partsFirst).toEqual([{ type: 'text', text: 'look' }, image]);
  });

  it('never merges an assistant message with tool_calls; tool results and system messages pass unchanged', () => {
    const call = {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
    };
    const call2 = {
      role: 'assistant',
      content: 'checking',
      tool_calls: [{ id: 'c2', type: 'function', function: { name: 'g', arguments: '{}' } }],
    };
    const input = [
      { role: 'system', content: 's1' },
      { role: 'system', content: 's2' },
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'thinking' },
      call,
      { role: 'tool', tool_call_id: 'c1', content: 'r1' },
      { role: 'tool', tool_call_id: 'c1b', content: 'r1b' },
      call2,
      { role: 'tool', tool_call_id: 'c2', content: 'r2' },
      { role: 'assistant', content: 'done' },
      { role: 'assistant', content: 'really done' },
      { role: 'user', content: 'x' },
      { role: 'system', content: 'mid' },
      { role: 'user', content: 'y' },
    ];
    const { messages, merged } = alternateRoles(input);
    expect(merged).toBe(1);
    expect(messages).toHaveLength(input.length - 1);
    for (const index of [0, 1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 13]) expect(messages).toContain(input[index]);
    expect(messages[9]).toEqual({ role: 'assistant', content: 'done\n\nreally done' });
    // A tool_calls message after a plain assistant one, and a plain one after tool calls, stay apart.
    expect(messages.slice(3, 5)).toEqual([input[3], call]);
    // A system message between two user messages: no merge across it.
    expect(messages.slice(-3)).toEqual(input.slice(-3));
    // A plain assistant message after one with tool_calls (no results in between) is not absorbed either.
    const after = alternateRoles([{ role: 'user', content: 'q' }, call, { role: 'assistant', content: 'plain' }]);
    expect(after).toEqual({
      messages: [{ role: 'user', content: 'q' }, call, { role: 'assistant', content: 'plain' }],
      merged: 0,
      sources: [[0], [1], [2]],
    });
  });

  it('returns the same objects and 0 when roles already alternate; handles empty input', () => {
    const input = [
      SYSTEM,
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'b' },
      { role: 'user', content: 'c' },
    ];
    const result = alternateRoles(input);
    expect(result.merged).toBe(0);
    result.messages.forEach((message, index) => expect(message).toBe(input[index]));
    expect(result.messages).not.toBe(input);
    expect(alternateRoles([])).toEqual({ messages: [], merged: 0, sources: [] });
  });
});

/**
 * `role_alternation` through the real HTTP inlet: chats are played once with `any`, every
 * turn's history is recorded, and the same histories are sent again with `strict`. Trimming
 * under a 700-token budget leaves pinned user messages next to each other (their replies are
 * dropped), or relevant replies next to each other (their questions are dropped).
 */
describe('context filter: role_alternation over HTTP', () => {
  let runtime: TestRuntime;
  const MAX = 700;
  const user = { id: 'u-alternation', email: 'alt@example.com', name: 'A', role: 'user' };
  /** The weighting valve of the test being played (the strict replay uses the same). */
  let currentWeighting = 'keyword';

  const inlet = (messages: Message[], chatId: string) => contextInlet(runtime, messages, chatId, user);
  const setValves = async (values: Record<string, string | number>) => {
    const form = Object.fromEntries(
      Object.entries({ max_tokens: MAX, recent: 4, algorithm: 'recency', weighting: 'keyword', ...values }).map(
        ([key, value]) => [key, String(value)],
      ),
    );
    await request(runtime.app).post('/context/valves/update').set(runtime.auth).send(form).expect(200);
  };

  /** A chat whose every inlet call (history as typed) is recorded, to be replayed with the other setting. */
  function recordedChat(chatId: string, start?: Message[]) {
    const histories: Message[][] = [];
    const chat = new SimulatedChat(
      async (messages, id) => {
        histories.push(structuredClone(messages));
        return inlet(messages, id);
      },
      chatId,
      start,
    );
    return { chat, histories };
  }

  /** Replays every recorded history with `strict` and checks it against the `any` output of the same turn. */
  async function replayStrict(chatId: string, histories: Message[][], sentAny: Message[][]) {
    await setValves({ role_alternation: 'strict', weighting: currentWeighting });
    const sentStrict: Message[][] = [];
    for (const [turn, history] of histories.entries()) {
      const strict = await inlet(history, chatId);
      sentStrict.push(strict);
      const any = sentAny[turn]!;
      // The same selection, only merged: strict is exactly `any` with adjacent plain same-role messages joined.
      expect(strict).toEqual(alternateRoles(any).messages);
      expect(adjacent(strict, 'user')).toEqual([]);
      expect(adjacent(strict, 'assistant')).toEqual([]);
      expectToolPairsIntact(strict);
      expectToolPairsIntact(any);
      expect(strict.filter((message) => message.role !== 'system')[0]!.role).toBe('user');
      expect(promptTokens(strict)).toBeLessThanOrEqual(MAX);
      expect(promptTokens(strict)).toBeLessThanOrEqual(promptTokens(any));
      // Nothing lost: every text sent with `any` is in the strict output, verbatim and in order.
      const strictText = strict
        .map((message) => (typeof message.content === 'string' ? message.content : ''))
        .join('\n\n');
      const anyTexts = any
        .map((message) => (typeof message.content === 'string' ? message.content : ''))
        .filter(Boolean);
      let from = 0;
      for (const text of anyTexts) {
        const at = strictText.indexOf(text, from);
        expect(at, `turn ${turn + 1}: ${text.slice(0, 20)}`).toBeGreaterThanOrEqual(from);
        from = at + text.length;
      }
      expect(strict.at(-1)!.role).toBe('user');
      expect(String(strict.at(-1)!.content).endsWith(String(any.at(-1)!.content))).toBe(true);
    }
    return sentStrict;
  }

  beforeAll(async () => {
    runtime = await createTestRuntime({ filters: ['context.ts'] });
  });
  afterAll(async () => runtime.dispose());

  it('pinned user messages whose replies were dropped: two users in a row with any, one merged message with strict', async () => {
    currentWeighting = 'keyword';
    await setValves({ role_alternation: 'any' });
    const spec = await request(runtime.app).get('/context/valves/spec').set(runtime.auth).expect(200);
    expect(spec.body.properties.role_alternation).toMatchObject({ default: 'any', enum: ['any', 'strict'] });
    const { chat, histories } = recordedChat('alt-pins');
    await chat.turn();
    await chat.turn({ prefix: '!pin ' });
    await chat.turn({ prefix: '!pin ' });
    await chat.turns(9);
    const withAdjacentUsers = chat.sent.filter((sent) => adjacent(sent, 'user').length > 0);
    expect(withAdjacentUsers.length).toBeGreaterThan(0);
    for (const sent of chat.sent) expect(promptTokens(sent)).toBeLessThanOrEqual(MAX);
    const last = chat.sent.at(-1)!;
    expect(labels(last).slice(0, 2)).toEqual(['u02', 'u03']); // a02 dropped: u02, u03 adjacent

    const strict = await replayStrict('alt-pins', histories, chat.sent);
    const merged = strict.at(-1)!.find((message) => labelOf(message) === 'u02')!;
    // Both pinned texts verbatim (flag blocks stripped), separated by a blank line.
    expect(String(merged.content).startsWith(`${fillerText('u', 2)}\n\n${fillerText('u', 3)}`)).toBe(true);
    expect(merged.role).toBe('user');
    expect(strict.at(-1)!.some((message) => message.content === fillerText('u', 3))).toBe(false);
    expect(strict.at(-1)!.length).toBeLessThan(last.length);
  });

  it('relevant replies whose questions were dropped: two assistants in a row with any, merged with strict', async () => {
    currentWeighting = 'keyword';
    await setValves({ role_alternation: 'any' });
    const { chat, histories } = recordedChat('alt-replies');
    await chat.turns(3, { topicReply: true });
    await chat.turns(8);
    await chat.turns(3, { topic: true });
    expect(chat.sent.filter((sent) => adjacent(sent, 'assistant').length > 0).length).toBeGreaterThan(0);
    const strict = await replayStrict('alt-replies', histories, chat.sent);
    const turn = chat.sent.findIndex((sent) => adjacent(sent, 'assistant').length > 0);
    const [at] = adjacent(chat.sent[turn]!, 'assistant');
    const pair = chat.sent[turn]!.slice(at! - 1, at! + 1);
    const joined = `${pair[0]!.content}\n\n${pair[1]!.content}`;
    expect(
      strict[turn]!.some((message) => message.role === 'assistant' && String(message.content).includes(joined)),
    ).toBe(true);
  });

  it('tool calls and results stay whole next to merges (smart weighting, a relevant tool exchange)', async () => {
    currentWeighting = 'smart';
    await setValves({ role_alternation: 'any', weighting: 'smart' });
    const call = (id: string, invoice: string): Message => ({
      role: 'assistant',
      content: null,
      tool_calls: [{ id, type: 'function', function: { name: 'get_invoice', arguments: `{"invoice":"${invoice}"}` } }],
    });
    const opening: Message[] = [
      SYSTEM,
      { role: 'user', content: '!pin Look up invoice 4411 for ACME please.' },
      call('call_4411', '4411'),
      {
        role: 'tool',
        tool_call_id: 'call_4411',
        content: 'invoice 4411 status: paid in full on March 2nd, 1200 EUR, customer ACME',
      },
      { role: 'assistant', content: 'Done: I fetched it for you.' },
      { role: 'user', content: '!pin And invoice 4412 and 4413, both at once.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_4412', type: 'function', function: { name: 'get_invoice', arguments: '{"invoice":"4412"}' } },
          { id: 'call_4413', type: 'function', function: { name: 'get_invoice', arguments: '{"invoice":"4413"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_4412', content: 'invoice 4412 status: open, 300 EUR, customer ACME' },
      {
        role: 'tool',
        tool_call_id: 'call_4413',
        content: 'invoice 4413 status: overdue since May, 950 EUR, customer ACME',
      },
      { role: 'assistant', content: 'Both fetched.' },
    ];
    const { chat, histories } = recordedChat('alt-tools', opening);
    await chat.turns(6);
    await chat.turn({ text: 'What was the status of invoice 4411 and 4413 for ACME?' });
    await chat.turns(2);
    await chat.turn({ text: 'Remind me about invoice 4413 for ACME once more.' });
    const sawTool = chat.sent.some((sent) => sent.some((message) => message.role === 'tool'));
    expect(sawTool).toBe(true);
    expect(chat.sent.some((sent) => adjacent(sent, 'user').length > 0 || adjacent(sent, 'assistant').length > 0)).toBe(
      true,
    );
    await replayStrict('alt-tools', histories, chat.sent);
  });
});
