import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeEach, describe, expect, inject, it, vi } from 'vitest';
import { deletePrefixedKeys } from '../../src/state/redis/delete-prefixed-keys.js';
import type { StateStore } from '../../src/state/types.js';
import { redisStore, sqliteStore, tempDir } from '../helpers/temp-store.js';
import { flagsNamespace } from './helpers/flag-stores.js';
import { inletBody, resolve, SimulatedChat, type ChatMessage } from './helpers/chat.js';

const redisUrl = inject('redisUrl');
if (!redisUrl) {
  if (process.env.CI) throw new Error('No Redis for the flags Redis suite under CI');
  console.warn('[flags] Redis persistence tests skipped: no Redis could be found or started (install redis-server)');
}
const filePrefix = `eunoe-flags-test:${randomUUID()}:`;
/** Move the clock the store and the flag resolver read (`Date`) forward; timers stay real. */
const advanceClock = (ms: number) => vi.setSystemTime(Date.now() + ms);

/** Three turns that leave a persistent flag, a pin and a tag, then drop the carrying messages. */
async function leaveState(chat: SimulatedChat): Promise<void> {
  await chat.say('!+nosum,+recent=6 start');
  await chat.say('!pin,tag=decision We use Postgres');
  await chat.say('!-recent plain');
}

describe('flag state on SQLite', () => {
  let dir: string;
  let cleanup: () => void;
  const open: StateStore[] = [];
  const openStore = async () => {
    const store = await sqliteStore(path.join(dir, 'state.db'));
    open.push(store);
    return store;
  };
  beforeEach(() => {
    ({ dir, remove: cleanup } = tempDir());
    // TTLs are the subject of some tests: SQLite expiry and the resolver both read Date.now().
    vi.useFakeTimers({ toFake: ['Date'] });
  });
  afterEach(async () => {
    vi.useRealTimers();
    await Promise.all(open.splice(0).map((store) => store.close()));
    cleanup();
  });

  it('survives a restart: a new store instance on the same file serves it from the store', async () => {
    const first = new SimulatedChat({ store: flagsNamespace(await openStore()) });
    await leaveState(first);
    const pinnedHistory = first.history.slice(2, 4);
    await open[0]?.close();

    // After the restart the carrying messages of !+nosum and !-recent are gone: only the store knows.
    const restarted = new SimulatedChat({ store: flagsNamespace(await openStore()) });
    restarted.history.push(...pinnedHistory);
    const { flags } = await restarted.say('after restart');
    expect(flags.source).toBe('store');
    expect(flags.persistent).toEqual({ nosum: true });
    expect(Object.values(flags.marks)).toEqual([{ pinned: true, tags: ['decision'] }]);
  });

  it('an expired entry is rebuilt by replaying the history', async () => {
    const chat = new SimulatedChat({ store: flagsNamespace(await openStore()), ttlMs: 300 });
    await leaveState(chat);
    advanceClock(450);
    const { flags } = await chat.say('after expiry');
    expect(flags.source).toBe('replay');
    expect(flags.persistent).toEqual({ nosum: true });
    expect(Object.values(flags.marks)).toEqual([{ pinned: true, tags: ['decision'] }]);
    expect((await chat.say('next')).flags.source).toBe('store');
  });

  it('the TTL is refreshed by writes, so an active chat keeps its state', async () => {
    const store = flagsNamespace(await openStore());
    const chat = new SimulatedChat({ store, ttlMs: 800 });
    await chat.say('!+nosum start');
    advanceClock(350);
    await chat.say('a turn past a quarter of the TTL rewrites the entry');
    advanceClock(600);
    expect(await store.get('chat:chat-1')).toMatchObject({ persistent: { nosum: true } });
    chat.history.splice(0, 2);
    expect((await chat.say('still here')).flags).toMatchObject({ source: 'store', persistent: { nosum: true } });
  });

  it('the outlet reads but never writes', async () => {
    const store = flagsNamespace(await openStore());
    const messages: ChatMessage[] = [
      { role: 'user', content: '!+nosum,flags hi' },
      { role: 'assistant', content: 'hello' },
    ];
    const { flags } = await resolve({ store }, { messages, chat_id: 'chat-1', id: 'r' }, 'outlet');
    expect(flags.temporary).toEqual({ flags: true });
    expect(flags.persistent).toEqual({ nosum: true });
    expect(await store.keys('')).toEqual([]);
  });

  it('two chats never share flags', async () => {
    const store = flagsNamespace(await openStore());
    await resolve({ store }, inletBody([{ role: 'user', content: '!+nosum a' }], 'chat-a'));
    const other = await resolve({ store }, inletBody([{ role: 'user', content: 'b' }], 'chat-b'));
    expect(other.flags.effective).toEqual({});
    expect(await store.keys('')).toEqual(['chat:chat-a']);
  });
});

describe.runIf(redisUrl)('flag state on Redis', () => {
  const open: StateStore[] = [];
  const replica = async (prefix: string) => {
    const store = await redisStore(redisUrl, prefix, 1000);
    open.push(store);
    return flagsNamespace(store);
  };
  afterEach(async () => {
    await Promise.all(open.splice(0).map((store) => store.close()));
  });
  afterAll(async () => {
    const admin = new Redis(redisUrl);
    await deletePrefixedKeys(admin, filePrefix);
    admin.disconnect();
  });

  it('is shared between replicas and survives a restart of both', async () => {
    const prefix = `${filePrefix}replicas:`;
    const [first, second] = [await replica(prefix), await replica(prefix)];
    const history: ChatMessage[] = [];
    const turn = async (store: StateStore, content: string) => {
      history.push({ role: 'user', content });
      const result = await resolve({ store }, inletBody([...history]));
      history.push({ role: 'assistant', content: `reply ${history.length}` });
      return result;
    };
    await turn(first, '!+nosum,+recent=6 start');
    await turn(second, '!pin,-recent pinned on the other replica');
    expect((await turn(first, 'back on the first')).flags).toMatchObject({
      source: 'store',
      persistent: { nosum: true },
    });
    await Promise.all(open.splice(0).map((store) => store.close()));

    const restarted = await replica(prefix);
    const { flags } = await resolve({ store: restarted }, inletBody([{ role: 'user', content: 'a new branch' }]));
    expect(flags.source).toBe('store');
    expect(flags.persistent).toEqual({ nosum: true });
    expect(Object.values(flags.marks)).toEqual([{ pinned: true }]);
  });

  it('concurrent inlets on two replicas both land (compare-and-set)', async () => {
    const prefix = `${filePrefix}race:`;
    const [first, second] = [await replica(prefix), await replica(prefix)];
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        resolve(
          { store: index % 2 ? first : second },
          inletBody([{ role: 'user', content: `!+tag=t${index},+target=${100 + index} m${index}` }]),
        ),
      ),
    );
    expect(results.every((result) => result.flags.notices.length === 0)).toBe(true);
    const stored = (await first.get('chat:chat-1')) as { marks: Record<string, { tags: string[] }>; applied: string[] };
    expect(stored.applied).toHaveLength(6);
    expect(
      Object.values(stored.marks)
        .flatMap((mark) => mark.tags)
        .sort(),
    ).toEqual(['t0', 't1', 't2', 't3', 't4', 't5']);
  });

  it('sets the TTL on the Redis key', async () => {
    const prefix = `${filePrefix}ttl:`;
    await resolve({ store: await replica(prefix), ttlMs: 60_000 }, inletBody([{ role: 'user', content: '!+nosum x' }]));
    const admin = new Redis(redisUrl);
    const keys = await admin.keys(`${prefix}*`);
    const ttls = await Promise.all(keys.map((key) => admin.pttl(key)));
    admin.disconnect();
    expect(keys).toHaveLength(1);
    expect(ttls[0]).toBeGreaterThan(50_000);
    expect(ttls[0]).toBeLessThanOrEqual(60_000);
  });
});
