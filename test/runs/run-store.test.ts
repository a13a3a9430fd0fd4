import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import { deletePrefixedKeys } from '../../src/state/redis/delete-prefixed-keys.js';
import type { StateStore } from '../../src/state/types.js';
import { createRunStore, newRunId, type RunRetention } from '../../src/features/context/runs/run-store.js';
import type { StoredRun } from '../../src/features/context/runs/run-record.js';
import { redisStore, sqliteStore, tempDir } from '../helpers/temp-store.js';
import { sleep, waitFor } from '../helpers/wait-for.js';
import { StateUnavailableError } from '../../src/core/errors/index.js';

/**
 * The run store on both real backends: retention (the latest N per chat, a global cap, a TTL), paging newest first,
 * filters by chat, user and model, and two replicas recording at once without losing each other's runs.
 */
const redisUrl = inject('redisUrl');
if (!redisUrl) {
  if (process.env.CI) throw new Error('No Redis for the run store suite under CI');
  console.warn('[runs] Redis run store suite skipped: no Redis could be found or started (install redis-server)');
}
const filePrefix = `eunoe-test:${randomUUID()}:`;
let count = 0;

/** A minimal stored run (the store does not look inside but for its head). */
function run(id: string, fields: { chat?: string; user?: string; model?: string } = {}): StoredRun {
  return {
    id,
    time: Date.now(),
    chat: fields.chat ?? 'c1',
    user: fields.user ?? 'u1',
    model: fields.model ?? 'm1',
    inspect: 'structure',
    algorithm: 'recency',
    weighting: 'keyword',
    durationMs: 1,
    budget: { limitTokens: 10, targetTokens: 10, source: 'valve', summaryReserveTokens: 0, cachedPrefixTokens: 0 },
    totals: { messages: 1, tokensBefore: 5, tokensAfter: 5, kept: 1, pinned: 0, summarized: 0, dropped: 0 },
    overBudget: false,
    flags: {},
    summaries: { made: 0, calls: 0, cacheHits: 0 },
    notes: [],
    columns: {
      roles: ['user'],
      role: [0],
      tokens: [5],
      score: [1],
      disposition: 'k',
      causes: ['current'],
      cause: [0],
      reasons: ['last user message'],
      reason: [0],
      merged: {},
    },
  };
}

/** Ids in time order: each a millisecond later than the one before. */
let clock = Date.UTC(2026, 0, 1);
const nextId = () => newRunId((clock += 1));
const KEEP: RunRetention = { perChat: 100, max: 1000, ttlMs: 3_600_000 };

const backends: Array<[string, () => Promise<{ store: StateStore; dispose: () => Promise<void> }>]> = [
  [
    'sqlite',
    async () => {
      const { dir, remove } = tempDir('eunoe-runs-');
      const store = await sqliteStore(path.join(dir, 'state.db'));
      const dispose = async () => {
        await store.close();
        remove();
      };
      return { store, dispose };
    },
  ],
];
if (redisUrl)
  backends.push([
    'redis',
    async () => {
      const prefix = `${filePrefix}${count++}:`;
      const store = await redisStore(redisUrl, prefix, 2000);
      return { store, dispose: () => store.close() };
    },
  ]);

afterAll(async () => {
  if (!redisUrl) return;
  const admin = new Redis(redisUrl);
  await deletePrefixedKeys(admin, filePrefix);
  admin.disconnect();
});

describe.each(backends)('run store on %s', (_name, open) => {
  let current: Awaited<ReturnType<typeof open>> | undefined;
  const start = async () => {
    current = await open();
    return current;
  };
  afterEach(async () => {
    await current?.dispose();
    current = undefined;
  });

  it('lists newest first, pages with before/next, filters by chat, user and model, and reads one run whole', async () => {
    const runs = createRunStore((await start()).store);
    const ids: string[] = [];
    for (let index = 0; index < 7; index++) {
      const id = nextId();
      ids.push(id);
      runs.record(
        run(id, { chat: index % 2 ? 'odd' : 'even', user: `u${index % 3}`, model: index < 4 ? 'a' : 'b' }),
        KEEP,
      );
    }
    const newest = [...ids].reverse();
    const first = await runs.list({ limit: 3 });
    expect(first.runs.map((head) => head.id)).toEqual(newest.slice(0, 3));
    expect(first.next).toBe(newest[2]);
    const second = await runs.list({ limit: 3, before: first.next! });
    expect(second.runs.map((head) => head.id)).toEqual(newest.slice(3, 6));
    const last = await runs.list({ limit: 3, before: second.next! });
    expect(last.runs.map((head) => head.id)).toEqual(newest.slice(6));
    expect(last.next).toBeNull();
    expect((await runs.list({ limit: 50, chat: 'odd' })).runs.map((head) => head.id)).toEqual(
      newest.filter((id) => ids.indexOf(id) % 2 === 1),
    );
    expect((await runs.list({ limit: 50, user: 'u1' })).runs.map((head) => head.id)).toEqual(
      newest.filter((id) => ids.indexOf(id) % 3 === 1),
    );
    expect((await runs.list({ limit: 50, model: 'b', chat: 'even' })).runs.map((head) => head.id)).toEqual(
      newest.filter((id) => ids.indexOf(id) >= 4 && ids.indexOf(id) % 2 === 0),
    );
    // A head carries no messages; a run read whole has them.
    expect(first.runs[0]).not.toHaveProperty('columns');
    expect(first.runs[0]).not.toHaveProperty('messages');
    const whole = await runs.get(ids[0]!);
    expect(whole?.messages).toEqual([
      {
        index: 0,
        role: 'user',
        tokens: 5,
        score: 1,
        disposition: 'kept',
        cause: 'current',
        reason: 'last user message',
      },
    ]);
    expect(await runs.get(newRunId(1))).toBeUndefined();
    expect(await runs.get('../etc/passwd')).toBeUndefined();
    expect((await runs.list({ limit: 50, chat: 'no such chat' })).runs).toEqual([]);
  });

  it('keeps the latest N runs of a chat and the latest M of all, and deletes the rest', async () => {
    const runs = createRunStore((await start()).store);
    const retention = { perChat: 2, max: 4, ttlMs: 3_600_000 };
    const ids: string[] = [];
    for (let index = 0; index < 3; index++) {
      ids.push(nextId());
      runs.record(run(ids.at(-1)!, { chat: 'one' }), retention);
    }
    expect((await runs.list({ limit: 50, chat: 'one' })).runs.map((head) => head.id)).toEqual([ids[2], ids[1]]);
    expect(await runs.get(ids[0]!)).toBeUndefined(); // pushed out of its chat: gone, also from the global list
    expect((await runs.list({ limit: 50 })).runs.map((head) => head.id)).toEqual([ids[2], ids[1]]);
    for (let index = 0; index < 3; index++) {
      ids.push(nextId());
      runs.record(run(ids.at(-1)!, { chat: `other-${index}` }), retention);
    }
    // Four at most in all: the oldest of chat "one" went.
    expect((await runs.list({ limit: 50 })).runs.map((head) => head.id)).toEqual([ids[5], ids[4], ids[3], ids[2]]);
    expect(await runs.get(ids[1]!)).toBeUndefined();
    expect((await runs.list({ limit: 50, chat: 'one' })).runs.map((head) => head.id)).toEqual([ids[2]]);
  });

  it('buffers runs: the store holds them after the flush interval, a read or a flush, each batch retained as a whole', async () => {
    const { store } = await start();
    const quick = createRunStore(store, { flushMs: 50 });
    const id = nextId();
    quick.record(run(id), KEEP);
    expect(await store.listRange('runs:all')).toEqual([]); // still in memory
    expect(await store.get(`runs:head:${id}`)).toBeUndefined();
    await waitFor(async () => (await store.listRange('runs:all')).includes(id)); // the timer wrote it, no read
    expect(await store.get(`runs:head:${id}`)).toMatchObject({ id, chat: 'c1' });

    // One batch of seven runs: retention applies as if they had been written one by one.
    const slow = createRunStore(store, { flushMs: 3_600_000 });
    const retention = { perChat: 2, max: 4, ttlMs: 3_600_000 };
    const ids = Array.from({ length: 7 }, () => nextId());
    for (const [index, each] of ids.entries()) slow.record(run(each, { chat: index < 5 ? 'batch' : 'b2' }), retention);
    expect(await store.listRange('runs:chat:batch')).toEqual([]);
    expect((await slow.list({ limit: 50, chat: 'batch' })).runs.map((head) => head.id)).toEqual([ids[4], ids[3]]);
    expect((await slow.list({ limit: 50 })).runs.map((head) => head.id)).toEqual([ids[6], ids[5], ids[4], ids[3]]);
    for (const gone of [id, ...ids.slice(0, 3)]) {
      expect(await slow.get(gone)).toBeUndefined();
      expect(await store.get(`runs:head:${gone}`)).toBeUndefined();
    }
    const last = nextId();
    slow.record(run(last), retention);
    await slow.flush();
    expect(await store.listRange('runs:all', 1)).toEqual([last]);
  });

  it('keeps a batch while the store is unavailable and writes it once the store answers', async () => {
    const { store } = await start();
    let down = true;
    const unavailable = () => Promise.reject(new StateUnavailableError('store away'));
    // The real store, its writes failing while `down` (as a store outage makes them).
    const flaky: StateStore = Object.create(store, {
      setMany: {
        value: (entries: Parameters<StateStore['setMany']>[0]) => (down ? unavailable() : store.setMany(entries)),
      },
    });
    const runs = createRunStore(flaky, { flushMs: 3_600_000 });
    const ids = [nextId(), nextId()];
    for (const id of ids) runs.record(run(id), KEEP);
    await runs.flush(); // fails, logged, kept
    expect(await store.listRange('runs:all')).toEqual([]);
    down = false;
    expect((await runs.list({ limit: 5 })).runs.map((head) => head.id)).toEqual([...ids].reverse());
  });

  it('a run the store refuses is lost alone: the rest of its batch is written', async () => {
    const runs = createRunStore((await start()).store, { flushMs: 3_600_000 });
    const [before, bad, after] = [nextId(), nextId(), nextId()];
    runs.record(run(before), KEEP);
    runs.record({ ...run(bad), flags: { huge: 1n } as unknown as StoredRun['flags'] }, KEEP); // no JSON form
    runs.record(run(after), KEEP);
    expect((await runs.list({ limit: 5 })).runs.map((head) => head.id)).toEqual([after, before]);
    expect(await runs.get(bad)).toBeUndefined();
  });

  it('forgets a run when its TTL has passed', async () => {
    const runs = createRunStore((await start()).store);
    const id = nextId();
    runs.record(run(id), { perChat: 5, max: 5, ttlMs: 300 });
    expect((await runs.get(id))?.id).toBe(id);
    await sleep(700); // the store's own clock (Redis expires keys by its clock)
    expect(await runs.get(id)).toBeUndefined();
    expect((await runs.list({ limit: 5 })).runs).toEqual([]);
  });
});

// One process owns a SQLite file; replicas share Redis.
describe.runIf(redisUrl)('run store on redis, two replicas', () => {
  it('two replicas recording at once lose none of each other’s runs', async () => {
    const prefix = `${filePrefix}replicas:`;
    const stores = [await redisStore(redisUrl, prefix, 2000), await redisStore(redisUrl, prefix, 2000)];
    try {
      const [first, second] = stores.map((store) => createRunStore(store)) as [
        ReturnType<typeof createRunStore>,
        ReturnType<typeof createRunStore>,
      ];
      const ids = Array.from({ length: 40 }, () => nextId());
      for (const [index, id] of ids.entries()) (index % 2 ? first : second).record(run(id, { chat: 'shared' }), KEEP);
      // Both buffers written at once: two batches of 20 runs racing on the same lists.
      await Promise.all([first.flush(), second.flush()]);
      const listed = (await second.list({ limit: 100, chat: 'shared' })).runs.map((head) => head.id);
      expect(listed.sort()).toEqual([...ids].sort());
      expect((await first.list({ limit: 100 })).runs.map((head) => head.id)).toEqual([...ids].reverse());
    } finally {
      for (const store of stores) await store.close();
    }
  });
});
