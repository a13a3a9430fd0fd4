import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { messageIds } from '../../src/domain/engine/message-id.js';
import { FlagRegistry } from '../../src/domain/flags/flag-registry.js';
import { keepTags } from '../../src/domain/flags/keep-tags.js';
import { describeFlags } from '../../src/domain/flags/describe-flags.js';
import { FLAG_ONLY_TEXT } from '../../src/domain/flags/strip-flag-blocks.js';
import type { StateStore } from '../../src/state/types.js';
import { sqliteStore, tempDir } from '../helpers/temp-store.js';
import { flagsNamespace } from './helpers/flag-stores.js';
import { inletBody, outletBody, resolve, SimulatedChat, type ChatMessage } from './helpers/chat.js';

let store: StateStore;
let cleanup: () => void;

beforeEach(async () => {
  const temp = tempDir();
  cleanup = temp.remove;
  store = await sqliteStore(path.join(temp.dir, 'state.db'));
});
afterEach(async () => {
  await store.close();
  cleanup();
});

const contents = (messages: unknown) => (messages as ChatMessage[]).map((message) => message.content);
/** Id of the message whose (stripped) content is `text` in what the model receives. */
const idOf = (messages: unknown, text: string) => {
  const list = messages as ChatMessage[];
  return messageIds(list)[list.findIndex((message) => message.content === text)];
};

describe('resolveFlags: turns', () => {
  it('a temporary flag applies only on the turn where it is the newest user message; old blocks stay stripped', async () => {
    const chat = new SimulatedChat({ store: flagsNamespace(store) });
    const first = await chat.say('!full,recent=4 Summarise everything');
    expect(first.flags.temporary).toEqual({ full: true, recent: 4 });
    expect(first.flags.has('full')).toBe(true);
    const second = await chat.say('And now?');
    expect(second.flags.effective).toEqual({});
    expect(contents(second.body.messages)).toEqual(['Summarise everything', 'reply 1', 'And now?']);
  });

  it("Open WebUI's filter chain: the next filter's request (already stripped) still gets this turn's flags", async () => {
    const options = { store: flagsNamespace(store) };
    const history: ChatMessage[] = [
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'hi' },
      { role: 'user', content: '!full,recent=abc,flags,+nosum Go on' },
    ];
    const first = await resolve(options, inletBody(history));
    const second = await resolve(options, first.body);
    expect(contents(second.body.messages)).toEqual(['hello', 'hi', 'Go on']);
    expect(second.flags.temporary).toEqual(first.flags.temporary);
    expect(second.flags.temporary).toEqual({ full: true, flags: true });
    expect(second.flags.notices).toEqual(first.flags.notices);
    expect(second.flags.effective).toEqual({ full: true, flags: true, nosum: true });
    const reply = { role: 'assistant', content: 'answer' };
    const outlet = await resolve(options, outletBody([...(second.body.messages as ChatMessage[]), reply]), 'outlet');
    expect(outlet.flags.has('flags')).toBe(true);
    const nextTurn = await resolve(
      options,
      inletBody([...(second.body.messages as ChatMessage[]), reply, { role: 'user', content: 'Go on' }]),
    );
    expect(nextTurn.flags.effective).toEqual({ nosum: true });
  });

  it('temporary flags hold when a tool call and its result follow the user message', async () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: '!nosum,target=900 Look this up' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call-1', type: 'function', function: { name: 'search', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'call-1', content: 'result' },
    ];
    const { flags } = await resolve({ store: flagsNamespace(store) }, inletBody(messages));
    expect(flags.effective).toEqual({ nosum: true, target: 900 });
  });

  it('!+x on turn 3 and !-x on turn 5 leave x off on turn 6', async () => {
    const chat = new SimulatedChat({ store: flagsNamespace(store) });
    await chat.say('one');
    await chat.say('two');
    expect((await chat.say('!+nosum three')).flags.persistent).toEqual({ nosum: true });
    expect((await chat.say('four')).flags.effective).toEqual({ nosum: true });
    expect((await chat.say('!-nosum five')).flags.has('nosum')).toBe(false);
    const sixth = await chat.say('six');
    expect(sixth.flags.effective).toEqual({});
    expect(sixth.flags.source).toBe('store');
  });

  it('deleting or editing the message that carried !+x keeps the flag', async () => {
    const chat = new SimulatedChat({ store: flagsNamespace(store) });
    await chat.say('!+recent=6 keep more');
    await chat.say('next');
    chat.history.splice(0, 2);
    expect((await chat.say('after the deletion')).flags.persistent).toEqual({ recent: 6 });
    chat.history[0] = { role: 'user', content: 'next (edited)' };
    expect((await chat.resend()).flags.persistent).toEqual({ recent: 6 });
  });

  it('a block is applied once: a regenerate does not re-apply an older !+x after a later !-x', async () => {
    const chat = new SimulatedChat({ store: flagsNamespace(store) });
    await chat.say('!+nosum a');
    await chat.say('!-nosum b');
    chat.history.pop();
    expect((await chat.resend()).flags.has('nosum')).toBe(false);
  });

  it('editing only the flag block of a message (same text, same id) applies the edited block', async () => {
    const chat = new SimulatedChat({ store: flagsNamespace(store) });
    await chat.say('!+nosum,pin hi');
    chat.history.splice(0, 2);
    const edited = await chat.say('!-nosum,pin=false hi');
    expect(edited.flags.persistent).toEqual({});
    expect(edited.flags.marks).toEqual({});
  });

  it('!pin marks the message that carried it, on this and every later turn', async () => {
    const chat = new SimulatedChat({ store: flagsNamespace(store) });
    await chat.say('The schema is users(id, name)');
    const pinnedTurn = await chat.say('!pin Remember this rule');
    const pinnedId = idOf(pinnedTurn.body.messages, 'Remember this rule');
    expect(pinnedTurn.flags.marks).toEqual({ [pinnedId as string]: { pinned: true } });
    await chat.say('something else');
    const later = await chat.say('and more');
    expect(idOf(later.body.messages, 'Remember this rule')).toBe(pinnedId);
    expect(later.flags.marks[pinnedId as string]).toEqual({ pinned: true });
    expect(later.flags.has('pin')).toBe(false);
  });

  it.each([
    ['!+pin,-pin', {}],
    ['!pin=false', {}],
    ['!+pin', { pinned: true }],
    ['!pin=yes', { pinned: true }],
  ])('%s on a message gives the mark %j', async (block, mark) => {
    const { flags, body } = await new SimulatedChat({ store: flagsNamespace(store) }).say(`${block} text`);
    const id = idOf(body.messages, 'text') as string;
    expect(flags.marks[id] ?? {}).toEqual(mark);
  });

  it('!tag tags the carrying message and a later !keep_tag finds it', async () => {
    const chat = new SimulatedChat({ store: flagsNamespace(store) });
    const tagged = await chat.say('!tag=decision We use Postgres');
    const taggedId = idOf(tagged.body.messages, 'We use Postgres') as string;
    await chat.say('!+tag="api, later" unrelated');
    const later = await chat.say('!keep_tag=decision What did we decide?');
    expect(later.flags.marks[taggedId]).toEqual({ tags: ['decision'] });
    expect(later.flags.marks[idOf(later.body.messages, 'What did we decide?') as string]).toBeUndefined();
    expect(later.flags.marks[idOf(later.body.messages, 'unrelated') as string]).toEqual({ tags: ['api', 'later'] });
    expect(keepTags(later.flags)).toEqual(['decision']);
    expect(keepTags((await chat.say('next turn')).flags)).toEqual([]);
  });

  it('repeated keys: the last one wins', async () => {
    const { flags } = await new SimulatedChat({ store: flagsNamespace(store) }).say(
      '!recent=2,recent=5,+target=100,+target=200 x',
    );
    expect(flags.temporary).toEqual({ recent: 5 });
    expect(flags.persistent).toEqual({ target: 200 });
    expect(flags.effective).toEqual({ recent: 5, target: 200 });
  });

  it('a temporary value wins over the persistent one this turn only', async () => {
    const chat = new SimulatedChat({ store: flagsNamespace(store) });
    await chat.say('!+recent=6 a');
    expect((await chat.say('!recent=2 b')).flags.effective).toEqual({ recent: 2 });
    expect((await chat.say('c')).flags.effective).toEqual({ recent: 6 });
  });

  it('!recent=abc is rejected with a notice, the rest of the block still applies', async () => {
    const { flags, body } = await new SimulatedChat({ store: flagsNamespace(store) }).say(
      '!recent=abc,nosum,weight=99 Go',
    );
    expect(flags.effective).toEqual({ nosum: true });
    expect(flags.notices).toEqual([
      expect.stringMatching(/^Flag !recent=abc ignored: recent expects a whole number/),
      expect.stringMatching(/weight must be at most 10/),
    ]);
    expect(contents(body.messages)).toEqual(['Go']);
  });

  it('per-user defaults apply under the chat flags; !-key switches a default off in this chat', async () => {
    const chat = new SimulatedChat({ store: flagsNamespace(store), defaults: '+nosum,recent=6' });
    expect((await chat.say('hello')).flags.effective).toEqual({ nosum: true, recent: 6 });
    expect((await chat.say('!+recent=3 more')).flags.effective).toEqual({ nosum: true, recent: 3 });
    const cleared = await chat.say('!-nosum less');
    expect(cleared.flags.effective).toEqual({ recent: 3 });
    expect(cleared.flags.defaults).toEqual({ recent: 6 });
  });

  it('bad default flags become notices, never errors', async () => {
    const { flags } = await new SimulatedChat({
      store: flagsNamespace(store),
      defaults: 'nosum,bogus,recent=x,pin',
    }).say('hi');
    expect(flags.effective).toEqual({ nosum: true });
    expect(flags.notices).toHaveLength(3);
  });

  it('leaves the original body untouched and keeps flagless messages as the identical objects', async () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: '!important note' },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: '!full' },
    ];
    const body = inletBody(messages);
    const snapshot = structuredClone(body);
    const result = await resolve({ store: flagsNamespace(store) }, body);
    expect(body).toEqual(snapshot);
    expect(result.body).not.toBe(body);
    expect(result.body.metadata).toEqual(body.metadata);
    const out = result.body.messages as ChatMessage[];
    expect([out[0] === messages[0], out[1] === messages[1], out[2] === messages[2], out[3] === messages[3]]).toEqual([
      true,
      true,
      true,
      false,
    ]);
    expect(out[3]).toEqual({ role: 'user', content: FLAG_ONLY_TEXT });
  });

  it('flags registered by a filter are parsed, stripped and readable; unregistered keys stay text', async () => {
    const registry = new FlagRegistry();
    const chat = new SimulatedChat({ store: flagsNamespace(store), registry });
    const before = await chat.say('!nocost hello');
    expect(contents(before.body.messages)).toEqual(['!nocost hello']);
    registry.register('cost', [
      { key: 'nocost', kind: 'boolean', description: 'hide cost' },
      { key: 'budget', kind: 'number', min: 0, description: 'cap' },
    ]);
    const after = await chat.say('!nocost,+budget=2.5 again');
    expect(after.flags.get('nocost')).toBe(true);
    expect(after.flags.persistent).toEqual({ budget: 2.5 });
    expect(contents(after.body.messages).at(-1)).toBe('again');
  });

  it('!context=5 reaches the engine as a whole number, never as a switch that turns trimming off', async () => {
    const { flags } = await new SimulatedChat({ store: flagsNamespace(store) }).say('!context=5 go');
    expect(flags.effective).toEqual({ context: 5 });
    expect(flags.has('full')).toBe(false);
  });

  it('!flags: the outlet of that turn describes the chat flags', async () => {
    const chat = new SimulatedChat({ store: flagsNamespace(store) });
    await chat.say('!+nosum,+recent=6 a');
    await chat.say('!pin,tag=decision b');
    await chat.say('!tag=decision c');
    const inlet = await chat.say('!flags');
    expect(contents(inlet.body.messages).at(-1)).toBe(FLAG_ONLY_TEXT);
    const { flags } = await resolve({ store: flagsNamespace(store) }, outletBody(chat.history), 'outlet');
    expect(flags.has('flags')).toBe(true);
    expect(describeFlags(flags)).toBe('⚑ Eunoe flags: +nosum, +recent=6 · pinned: 1 message · tags: decision (2)');
  });

  it('a body without messages resolves to no flags', async () => {
    const { flags, body } = await resolve({ store: flagsNamespace(store) }, { model: 'm', metadata: { chat_id: 'x' } });
    expect(flags.effective).toEqual({});
    expect(body).toEqual({ model: 'm', metadata: { chat_id: 'x' } });
  });
});
