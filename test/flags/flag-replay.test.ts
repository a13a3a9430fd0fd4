import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { StateStore } from '../../src/state/types.js';
import { sqliteStore, tempDir } from '../helpers/temp-store.js';
import { deadRedisStore, flagsNamespace, hangingStore, rejectingStore } from './helpers/flag-stores.js';
import { inletBody, outletBody, resolve, type ChatMessage } from './helpers/chat.js';

/** A history whose older messages carry persistent flags, a pin and a tag. */
const history: ChatMessage[] = [
  { role: 'user', content: '!+nosum,+recent=6 start' },
  { role: 'assistant', content: 'ok' },
  {
    role: 'user',
    content: [
      { type: 'text', text: '!pin,tag=decision We use Postgres' },
      { type: 'image_url', image_url: { url: 'data:x' } },
    ],
  },
  { role: 'assistant', content: 'noted' },
  { role: 'user', content: '!-recent,+target=900 less' },
  { role: 'assistant', content: 'fine' },
  { role: 'user', content: '!full now' },
];
const replayed = { nosum: true, target: 900, full: true };

const open: StateStore[] = [];
const cleanups: Array<() => void> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((store) => store.close()));
  cleanups.splice(0).forEach((cleanup) => cleanup());
});

describe('replay when the store has nothing or is down', () => {
  it.each([
    ['an always-rejecting store', async () => rejectingStore()],
    ['a Redis store on a port where nothing listens', async () => deadRedisStore()],
  ])('%s: the state is rebuilt from the history, source replay, no error', async (_, makeStore) => {
    const store = await makeStore();
    open.push(store);
    const started = Date.now();
    const { flags, body } = await resolve({ store: flagsNamespace(store) }, inletBody(history));
    expect(Date.now() - started).toBeLessThan(3000);
    expect(flags.source).toBe('replay');
    expect(flags.effective).toEqual(replayed);
    expect(Object.values(flags.marks)).toEqual([{ pinned: true, tags: ['decision'] }]);
    expect((body.messages as ChatMessage[]).map((message) => message.content)).toEqual([
      'start',
      'ok',
      [
        { type: 'text', text: 'We use Postgres' },
        { type: 'image_url', image_url: { url: 'data:x' } },
      ],
      'noted',
      'less',
      'fine',
      'now',
    ]);
  });

  it('a store that never answers does not hang the request', async () => {
    const store = hangingStore();
    const started = Date.now();
    const { flags } = await resolve({ store: flagsNamespace(store), timeoutMs: 200 }, inletBody(history));
    expect(Date.now() - started).toBeLessThan(3000);
    expect(flags.effective).toEqual(replayed);
    expect(store.calls).toBe(1);
  });

  it('the outlet replays too when the store is down', async () => {
    const messages = [...history, { role: 'assistant', content: 'answer' }];
    const { flags } = await resolve({ store: flagsNamespace(rejectingStore()) }, outletBody(messages), 'outlet');
    expect(flags).toMatchObject({ source: 'replay', effective: replayed });
  });

  it('with the store down and flags only on the newest message, temporary flags still apply', async () => {
    const { flags } = await resolve(
      { store: flagsNamespace(rejectingStore()) },
      inletBody([{ role: 'user', content: '!recent=3,+nosum go' }]),
    );
    expect(flags).toMatchObject({ source: 'none', effective: { recent: 3, nosum: true } });
  });

  it('a stored value of the wrong shape is replaced by the replayed state', async () => {
    const temp = tempDir();
    cleanups.push(temp.remove);
    const store = await sqliteStore(path.join(temp.dir, 'state.db'));
    open.push(store);
    const flagsStore = flagsNamespace(store);
    await flagsStore.set('chat:chat-1', { persistent: 'garbage' });
    expect((await resolve({ store: flagsStore }, inletBody(history))).flags).toMatchObject({
      source: 'replay',
      effective: replayed,
    });
    expect((await resolve({ store: flagsStore }, inletBody(history))).flags).toMatchObject({
      source: 'store',
      effective: replayed,
    });
  });

  it('with a stored state the outlet does not re-apply blocks the inlet saw under other ids', async () => {
    const temp = tempDir();
    cleanups.push(temp.remove);
    const store = await sqliteStore(path.join(temp.dir, 'state.db'));
    open.push(store);
    const flagsStore = flagsNamespace(store);
    await resolve({ store: flagsStore }, inletBody(history));
    // The outlet body carries the image message as plain text (other id) and the reply.
    const outlet = history.map((message, index) =>
      index === 2 ? { role: 'user', content: '!+recent=2,pin,tag=decision We use Postgres' } : message,
    );
    const { flags } = await resolve(
      { store: flagsStore },
      outletBody([...outlet, { role: 'assistant', content: 'answer' }]),
      'outlet',
    );
    expect(flags).toMatchObject({ source: 'store', effective: replayed });
    expect(Object.keys(flags.marks)).toHaveLength(1);
  });
});
