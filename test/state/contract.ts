import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StateUnavailableError } from '../../src/core/errors/index.js';
import { ScopedState } from '../../src/state/scoped-state.js';
import { StateValueError } from '../../src/state/state-value-error.js';
import type { StateStore } from '../../src/state/types.js';
import type { TestClock } from '../helpers/clock.js';
import { sleep, waitFor } from '../helpers/wait-for.js';

/** A store under test plus what disposes of it. */
export interface StoreUnderTest {
  store: StateStore;
  dispose: () => Promise<void>;
}

/** Publish until `received` holds something (a Redis subscription becomes active asynchronously). */
async function publishUntilReceived(store: StateStore, channel: string, message: string, received: string[]) {
  await waitFor(
    async () => {
      if (received.length > 0) return true;
      await store.publish(channel, message);
      await sleep(25);
      return received.length > 0;
    },
    { timeoutMs: 5000, intervalMs: 0 },
  );
}

/**
 * A TTL long enough that no stall of a loaded machine between two calls reaches it (a value must
 * still be there right after it was written), and a step of the clock certainly past it.
 */
const TTL = 500;
const PAST_TTL = 600;

/**
 * The behaviour every StateStore backend promises (see src/state/types.ts). Each test gets a
 * fresh, empty store from `makeStore`; `clock` moves the time its TTLs and leases are measured in.
 */
export function runStoreContract(name: string, makeStore: () => Promise<StoreUnderTest>, clock: TestClock): void {
  describe(`StateStore contract: ${name}`, () => {
    let current: StoreUnderTest | undefined;
    const open = async () => {
      current = await makeStore();
      return current.store;
    };
    beforeEach(() => clock.install());
    afterEach(async () => {
      clock.uninstall();
      await current?.dispose();
      current = undefined;
    });

    describe('documents', () => {
      it('round-trips JSON values and reports absent keys as undefined', async () => {
        const store = await open();
        expect(await store.get('missing')).toBeUndefined();
        const values: Record<string, unknown> = {
          obj: { a: 1, b: [true, null, 'x'] },
          str: 'héllo',
          num: 4.5,
          nil: null,
          arr: [1, 2],
        };
        for (const [key, value] of Object.entries(values)) await store.set(key, value);
        for (const [key, value] of Object.entries(values)) expect(await store.get(key)).toEqual(value);
        await store.set('str', 'second');
        expect(await store.get('str')).toBe('second');
      });

      it('refuses a value with no JSON form', async () => {
        const store = await open();
        await expect(store.set('k', undefined)).rejects.toBeInstanceOf(StateValueError);
        await expect(store.setMany([{ key: 'k', value: () => 1 }])).rejects.toBeInstanceOf(StateValueError);
        expect(await store.get('k')).toBeUndefined();
      });

      it('getMany aligns results with the keys asked, including missing and repeated keys', async () => {
        const store = await open();
        await store.setMany([
          { key: 'tok:a', value: 11 },
          { key: 'tok:b', value: { n: 22 } },
        ]);
        expect(await store.getMany(['tok:b', 'nope', 'tok:a', 'tok:b'])).toEqual([{ n: 22 }, undefined, 11, { n: 22 }]);
        expect(await store.getMany([])).toEqual([]);
        await store.setMany([]);
      });

      it('delete reports whether something was deleted', async () => {
        const store = await open();
        await store.set('gone', 1);
        expect(await store.delete('gone')).toBe(true);
        expect(await store.delete('gone')).toBe(false);
        expect(await store.get('gone')).toBeUndefined();
      });

      it('keys lists documents under a literal prefix only', async () => {
        const store = await open();
        await store.setMany([
          { key: 'valves:u1', value: 1 },
          { key: 'valves:u2', value: 2 },
          { key: 'valvesX', value: 3 },
          { key: 'other:u1', value: 4 },
          { key: 'glob*[x]?:1', value: 5 },
          { key: 'globA[x]?:2', value: 6 },
        ]);
        await store.increment('valves:count');
        await store.append('valves:stream', { id: 'r', time: 1, data: {} });
        await store.acquireLease('valves:lease', 10_000);
        expect((await store.keys('valves:')).sort()).toEqual(['valves:count', 'valves:u1', 'valves:u2']);
        expect(await store.keys('glob*[x]?')).toEqual(['glob*[x]?:1']);
        expect(await store.keys('zzz')).toEqual([]);
      });
    });

    describe('TTL', () => {
      it('expires documents after their TTL and hides them from get, getMany and keys', async () => {
        const store = await open();
        await store.set('short', 'v', { ttlMs: TTL });
        await store.setMany([
          { key: 'many:short', value: 1, ttlMs: TTL },
          { key: 'many:long', value: 2 },
        ]);
        expect(await store.get('short')).toBe('v');
        await clock.advance(PAST_TTL);
        expect(await store.get('short')).toBeUndefined();
        expect(await store.getMany(['many:short', 'many:long'])).toEqual([undefined, 2]);
        expect(await store.keys('many:')).toEqual(['many:long']);
        expect(await store.delete('short')).toBe(false);
      });

      it('a later write without TTL makes the document permanent', async () => {
        const store = await open();
        await store.set('k', 1, { ttlMs: TTL });
        await store.set('k', 2);
        await clock.advance(PAST_TTL);
        expect(await store.get('k')).toBe(2);
      });
    });

    describe('compareAndSet', () => {
      it('writes only when the current value deep-equals the expected one', async () => {
        const store = await open();
        expect(await store.compareAndSet('job', undefined, { state: 'running', n: 1 })).toBe(true);
        expect(await store.compareAndSet('job', undefined, { state: 'other' })).toBe(false);
        expect(await store.compareAndSet('job', { state: 'idle', n: 1 }, { state: 'x' })).toBe(false);
        expect(await store.get('job')).toEqual({ state: 'running', n: 1 });
        // Same JSON value with keys in another order still matches.
        expect(await store.compareAndSet('job', { n: 1, state: 'running' }, { state: 'done' })).toBe(true);
        expect(await store.get('job')).toEqual({ state: 'done' });
        expect(await store.compareAndSet('missing', null, 1)).toBe(false);
      });

      it('treats an expired key as absent and honours a TTL on the new value', async () => {
        const store = await open();
        await store.set('k', 'old', { ttlMs: 50 });
        await clock.advance(120);
        expect(await store.compareAndSet('k', undefined, 'new', { ttlMs: TTL })).toBe(true);
        expect(await store.get('k')).toBe('new');
        await clock.advance(PAST_TTL);
        expect(await store.get('k')).toBeUndefined();
      });

      it('lets exactly one of many concurrent writers win', async () => {
        const store = await open();
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, index) => store.compareAndSet('once', undefined, index)),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
        expect(await store.get('once')).toBe(results.indexOf(true));
      });
    });

    describe('increment', () => {
      it('starts from 0, adds by 1 by default, accepts negative and fractional steps', async () => {
        const store = await open();
        expect(await store.increment('c')).toBe(1);
        expect(await store.increment('c', 2.5)).toBe(3.5);
        expect(await store.increment('c', -1.25)).toBe(2.25);
        expect(await store.get('c')).toBe(2.25);
      });

      it('gives the exact sum under many parallel increments', async () => {
        const store = await open();
        await Promise.all(Array.from({ length: 200 }, () => store.increment('hits')));
        await Promise.all(Array.from({ length: 80 }, () => store.increment('spend', 0.125)));
        expect(await store.get('hits')).toBe(200);
        expect(await store.get('spend')).toBe(10);
      });

      it('applies the TTL only when the counter is created', async () => {
        const store = await open();
        await store.increment('rate', 1, { ttlMs: TTL });
        await clock.advance(TTL / 5);
        expect(await store.increment('rate', 1, { ttlMs: 10_000 })).toBe(2);
        // Past the first TTL, far inside the second: only the first one applies.
        await clock.advance(PAST_TTL);
        expect(await store.get('rate')).toBeUndefined();
        expect(await store.increment('rate')).toBe(1);
      });

      it('rejects incrementing a non-number with StateValueError', async () => {
        const store = await open();
        await store.set('doc', { a: 1 });
        await expect(store.increment('doc')).rejects.toBeInstanceOf(StateValueError);
        expect(await store.get('doc')).toEqual({ a: 1 });
      });
    });

    describe('deleteMany', () => {
      it('deletes several documents at once and counts those that were there', async () => {
        const store = await open();
        await store.setMany([
          { key: 'a', value: 1 },
          { key: 'b', value: 2 },
          { key: 'c', value: 3 },
        ]);
        expect(await store.deleteMany([])).toBe(0);
        expect(await store.deleteMany(['a', 'c', 'missing'])).toBe(2);
        expect(await store.getMany(['a', 'b', 'c'])).toEqual([undefined, 2, undefined]);
      });
    });

    describe('capped lists', () => {
      it('pushes to the head, moves a repeated item there, keeps the first max and returns what fell off', async () => {
        const store = await open();
        expect(await store.listRange('list')).toEqual([]);
        expect(await store.listPush('list', 'a', { max: 3 })).toEqual([]);
        expect(await store.listPush('list', 'b', { max: 3 })).toEqual([]);
        expect(await store.listPush('list', 'c', { max: 3 })).toEqual([]);
        expect(await store.listPush('list', 'a', { max: 3 })).toEqual([]);
        expect(await store.listRange('list')).toEqual(['a', 'c', 'b']);
        expect(await store.listPush('list', 'd', { max: 3 })).toEqual(['b']);
        expect(await store.listPush('list', 'e', { max: 2 })).toEqual(['a', 'c']);
        expect(await store.listRange('list')).toEqual(['e', 'd']);
        expect(await store.listRange('list', 1)).toEqual(['e']);
        expect(await store.listRange('list', 0)).toEqual([]);
        // Lists live apart from documents.
        expect(await store.get('list')).toBeUndefined();
        expect(await store.keys('li')).toEqual([]);
        await store.set('list', 'a document');
        expect(await store.listRange('list')).toEqual(['e', 'd']);
      });

      it('concurrent pushes lose no item', async () => {
        const store = await open();
        const items = Array.from({ length: 60 }, (_, index) => `i${index}`);
        const evicted = (await Promise.all(items.map((item) => store.listPush('busy', item, { max: 50 })))).flat();
        const kept = await store.listRange('busy');
        expect(kept).toHaveLength(50);
        expect([...kept, ...evicted].sort()).toEqual([...items].sort());
      });

      it('listPushMany pushes to several lists in order, as listPush would, and returns what fell off each', async () => {
        const store = await open();
        expect(await store.listPushMany([])).toEqual([]);
        await store.listPush('one', 'a', { max: 2 });
        const evicted = await store.listPushMany([
          { key: 'one', item: 'b', options: { max: 2 } },
          { key: 'two', item: 'x', options: { max: 5, ttlMs: TTL } },
          { key: 'one', item: 'c', options: { max: 2 } },
          { key: 'one', item: 'b', options: { max: 2 } },
          { key: 'two', item: 'y', options: { max: 1, ttlMs: TTL } },
        ]);
        expect(evicted).toEqual([[], [], ['a'], [], ['x']]);
        expect(await store.listRange('one')).toEqual(['b', 'c']);
        expect(await store.listRange('two')).toEqual(['y']);
        await clock.advance(PAST_TTL);
        expect(await store.listRange('two')).toEqual([]);
        expect(await store.listRange('one')).toEqual(['b', 'c']);
      });

      it('concurrent listPushMany calls lose no item', async () => {
        const store = await open();
        const items = Array.from({ length: 60 }, (_, index) => `i${index}`);
        const results = await Promise.all(
          Array.from({ length: 6 }, (_, batch) =>
            store.listPushMany(
              items.slice(batch * 10, batch * 10 + 10).map((item) => ({ key: 'many', item, options: { max: 25 } })),
            ),
          ),
        );
        const kept = await store.listRange('many');
        expect(kept).toHaveLength(25);
        expect([...kept, ...results.flat(2)].sort()).toEqual([...items].sort());
      });

      it('windowAdmit: at most `limit` in any window, however the calls straddle a minute; the true wait on refusal', async () => {
        const store = await open();
        const minute = 60_000;
        // Caller's clock: 10:00:59.000 … (any epoch ms; the window is measured in the times the caller gives).
        const at59 = Date.parse('2026-12-05T10:00:59Z');
        const admit = (now: number, limit = 3) => store.windowAdmit('rate:u1', { limit, windowMs: minute, now });
        expect(await admit(at59)).toEqual({ admitted: true, count: 1 });
        expect(await admit(at59 + 500)).toEqual({ admitted: true, count: 2 });
        expect(await admit(at59 + 900)).toEqual({ admitted: true, count: 3 });
        // 10:01:01: a calendar-minute counter would start afresh; the window still holds all three.
        expect(await admit(at59 + 2000)).toEqual({ admitted: false, retryAt: at59 + minute });
        // Refusals are not recorded: the wait stays the oldest admission's exit.
        expect(await admit(at59 + minute - 1)).toEqual({ admitted: false, retryAt: at59 + minute });
        // At its exit the oldest no longer counts: one more passes, and the next waits for the second oldest.
        expect(await admit(at59 + minute)).toEqual({ admitted: true, count: 3 });
        expect(await admit(at59 + minute + 1)).toEqual({ admitted: false, retryAt: at59 + 500 + minute });
        // Another key is another window; windows live apart from documents and lists.
        expect(await store.windowAdmit('rate:u2', { limit: 1, windowMs: minute, now: at59 })).toEqual({
          admitted: true,
          count: 1,
        });
        expect(await store.get('rate:u1')).toBeUndefined();
        expect(await store.keys('rate:')).toEqual([]);
        expect(await store.listRange('rate:u1')).toEqual([]);
      });

      it('windowAdmit keeps at most `limit` times: a lowered limit counts the newest only', async () => {
        const store = await open();
        const start = 1_000_000;
        for (let index = 0; index < 5; index++)
          expect(await store.windowAdmit('w', { limit: 5, windowMs: 60_000, now: start + index * 1000 })).toEqual({
            admitted: true,
            count: index + 1,
          });
        // Limit 2: the newest two (start + 3 s, start + 4 s) fill it; room again when start + 3 s leaves.
        expect(await store.windowAdmit('w', { limit: 2, windowMs: 60_000, now: start + 10_000 })).toEqual({
          admitted: false,
          retryAt: start + 3000 + 60_000,
        });
        // Only those two were kept: back at 5, three more pass.
        const back = [];
        for (let index = 0; index < 4; index++)
          back.push(await store.windowAdmit('w', { limit: 5, windowMs: 60_000, now: start + 11_000 + index }));
        expect(back.map((admission) => admission.admitted)).toEqual([true, true, true, false]);
        expect(back[3]).toEqual({ admitted: false, retryAt: start + 3000 + 60_000 });
      });

      it('windowAdmit: concurrent calls admit exactly `limit`', async () => {
        const store = await open();
        const now = 5_000_000;
        const results = await Promise.all(
          Array.from({ length: 20 }, () => store.windowAdmit('busy', { limit: 7, windowMs: 60_000, now })),
        );
        const admitted = results.filter((result) => result.admitted);
        expect(admitted).toHaveLength(7);
        expect(admitted.map((result) => (result.admitted ? result.count : 0)).sort((a, b) => a - b)).toEqual([
          1, 2, 3, 4, 5, 6, 7,
        ]);
        for (const refused of results.filter((result) => !result.admitted))
          expect(refused).toEqual({ admitted: false, retryAt: now + 60_000 });
      });

      it('expires a list after its TTL; each push renews it', async () => {
        const store = await open();
        await store.listPush('ttl', 'a', { max: 5, ttlMs: TTL });
        await store.listPush('forever', 'a', { max: 5, ttlMs: TTL });
        await store.listPush('forever', 'b', { max: 5 });
        expect(await store.listRange('ttl')).toEqual(['a']);
        await clock.advance(PAST_TTL);
        expect(await store.listRange('ttl')).toEqual([]);
        expect(await store.listRange('forever')).toEqual(['b', 'a']);
        expect(await store.listPush('ttl', 'b', { max: 5 })).toEqual([]);
        expect(await store.listRange('ttl')).toEqual(['b']);
      });
    });

    describe('append and range', () => {
      it('is idempotent by record id', async () => {
        const store = await open();
        expect(await store.append('ledger', { id: 'm1', time: 1000, data: { usd: 1 } })).toBe(true);
        expect(await store.append('ledger', { id: 'm1', time: 2000, data: { usd: 99 } })).toBe(false);
        expect(await store.range('ledger')).toEqual([{ id: 'm1', time: 1000, data: { usd: 1 } }]);
      });

      it('returns records in time order, ties in insertion order, with from inclusive, to exclusive and limit', async () => {
        const store = await open();
        const appended = [
          { id: 'c', time: 3000 },
          { id: 'a', time: 1000 },
          { id: 'z', time: 2000 },
          { id: 'b', time: 2000 },
          { id: 'y', time: 2000 },
          { id: 'd', time: 4000 },
        ];
        for (const record of appended) await store.append('ledger', { ...record, data: { id: record.id } });
        const ids = async (query?: Parameters<StateStore['range']>[1]) =>
          (await store.range('ledger', query)).map((record) => record.id);
        expect(await ids()).toEqual(['a', 'z', 'b', 'y', 'c', 'd']);
        expect(await ids({ from: 2000 })).toEqual(['z', 'b', 'y', 'c', 'd']);
        expect(await ids({ to: 3000 })).toEqual(['a', 'z', 'b', 'y']);
        expect(await ids({ from: 2000, to: 4000, limit: 2 })).toEqual(['z', 'b']);
        expect(await ids({ limit: 0 })).toEqual([]);
        expect(await ids({ from: 5000 })).toEqual([]);
        expect((await store.range('ledger', { from: 3000, to: 3001 }))[0]).toEqual({
          id: 'c',
          time: 3000,
          data: { id: 'c' },
        });
      });

      it('keeps streams apart', async () => {
        const store = await open();
        await store.append('s1', { id: 'same', time: 1, data: { s: 1 } });
        expect(await store.append('s2', { id: 'same', time: 1, data: { s: 2 } })).toBe(true);
        expect(await store.range('s1')).toEqual([{ id: 'same', time: 1, data: { s: 1 } }]);
        expect(await store.range('empty')).toEqual([]);
      });

      it('records each of many concurrent appends exactly once', async () => {
        const store = await open();
        const ids = Array.from({ length: 100 }, (_, index) => `r${index % 50}`);
        const results = await Promise.all(
          ids.map((id, index) => store.append('ledger', { id, time: index, data: {} })),
        );
        expect(results.filter(Boolean)).toHaveLength(50);
        const stored = (await store.range('ledger')).map((record) => record.id);
        expect(new Set(stored).size).toBe(50);
        expect(stored).toHaveLength(50);
      });
    });

    describe('leases', () => {
      it('a second acquire fails until the holder releases', async () => {
        const store = await open();
        const first = await store.acquireLease('pricing-refresh', 10_000);
        expect(first?.name).toBe('pricing-refresh');
        expect(await store.acquireLease('pricing-refresh', 10_000)).toBeUndefined();
        expect(await store.acquireLease('other-job', 10_000)).toBeDefined();
        await first?.release();
        expect(await store.acquireLease('pricing-refresh', 10_000)).toBeDefined();
      });

      it('expires by itself, and a stale holder releasing does not free the new holder', async () => {
        const store = await open();
        const stale = await store.acquireLease('job', 60);
        expect(stale).toBeDefined();
        await clock.advance(150);
        const fresh = await store.acquireLease('job', 10_000);
        expect(fresh).toBeDefined();
        await stale?.release();
        expect(await store.acquireLease('job', 10_000)).toBeUndefined();
        await fresh?.release();
        expect(await store.acquireLease('job', 10_000)).toBeDefined();
      });
    });

    describe('publish and subscribe', () => {
      it('delivers to subscribers of the channel until they unsubscribe', async () => {
        const store = await open();
        const received: string[] = [];
        const elsewhere: string[] = [];
        const unsubscribe = store.subscribe('valves', (message) => received.push(message));
        store.subscribe('other', (message) => elsewhere.push(message));
        await publishUntilReceived(store, 'valves', 'changed:context', received);
        expect(received[0]).toBe('changed:context');
        unsubscribe();
        const before = received.length;
        await store.publish('valves', 'after');
        // A later subscriber receiving a later message proves 'after' has been delivered to whoever listened.
        const later: string[] = [];
        store.subscribe('valves', (message) => later.push(message));
        await publishUntilReceived(store, 'valves', 'probe', later);
        expect(received).toHaveLength(before);
        expect(elsewhere).toEqual([]);
      });
    });

    describe('scopes and close', () => {
      it('ScopedState keeps two filters apart on the same store', async () => {
        const store = await open();
        const context = new ScopedState(store, 'f:context:');
        const accounting = new ScopedState(store, 'f:accounting:');
        await context.set('k', 'ctx');
        await accounting.set('k', 'acc');
        expect(await context.get('k')).toBe('ctx');
        expect(await context.keys('')).toEqual(['k']);
        expect(await store.get('f:accounting:k')).toBe('acc');
      });

      it('after close, calls reject with StateUnavailableError and a second close is harmless', async () => {
        const store = await open();
        await store.set('k', 1);
        await store.close();
        await expect(store.get('k')).rejects.toBeInstanceOf(StateUnavailableError);
        await expect(store.append('s', { id: 'x', time: 1, data: {} })).rejects.toBeInstanceOf(StateUnavailableError);
        await expect(store.publish('c', 'm')).rejects.toBeInstanceOf(StateUnavailableError);
        expect(() => store.subscribe('c', () => {})).toThrow(StateUnavailableError);
        expect(store.health().ok).toBe(false);
        await store.close();
      });
    });
  });
}
