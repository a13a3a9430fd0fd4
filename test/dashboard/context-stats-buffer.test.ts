import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createContextStats } from '../../src/features/context/stats/context-stats.js';
import type { StateStore } from '../../src/state/types.js';
import { tempSqliteStore } from '../helpers/temp-store.js';
import { waitFor } from '../helpers/wait-for.js';

const DAY = Date.UTC(2026, 10, 30, 12);
const inlet = {
  tokensBefore: 1000,
  tokensAfter: 400,
  kept: 5,
  summarized: 0,
  dropped: 7,
  summarizerCalls: 0,
  cacheHits: 2,
};

describe('context statistics are summed in memory and written in batches', () => {
  let store: StateStore;
  let dispose: () => Promise<void>;
  beforeEach(async () => {
    ({ store, dispose } = await tempSqliteStore());
  });
  afterEach(async () => dispose());

  it('inlets add up in memory; a flush writes one sum per field; a read flushes first', async () => {
    const stats = createContextStats(store, () => DAY, 60_000);
    await stats.record(inlet);
    await stats.record({ ...inlet, kept: 1 });
    expect(await store.get('stats:context:2026-11-30:inlets')).toBeUndefined();
    const [day] = await stats.daily('2026-11-30', '2026-12-01');
    expect(day).toMatchObject({ day: '2026-11-30', inlets: 2, tokensBefore: 2000, kept: 6, dropped: 14, cacheHits: 4 });
    expect(await store.get('stats:context:2026-11-30:inlets')).toBe(2);
    await stats.record(inlet);
    await stats.flush();
    expect(await store.get('stats:context:2026-11-30:inlets')).toBe(3);
    expect(await store.get('stats:context:2026-11-30:summarized')).toBeUndefined(); // zero sums are not written
  });

  it('the buffer reaches the store by itself after the flush interval', async () => {
    const stats = createContextStats(store, () => DAY, 20);
    await stats.record(inlet);
    await waitFor(() => store.get('stats:context:2026-11-30:inlets'), { until: (value) => value === 1 });
  });

  it('a sum the store refuses stays buffered and is written by a later flush, the others are not repeated', async () => {
    await store.set('stats:context:2026-11-30:kept', 'not a number');
    const stats = createContextStats(store, () => DAY, 60_000);
    await stats.record(inlet);
    await stats.flush();
    expect(await store.get('stats:context:2026-11-30:inlets')).toBe(1);
    await store.delete('stats:context:2026-11-30:kept');
    await stats.flush();
    expect(await store.get('stats:context:2026-11-30:kept')).toBe(5);
    expect(await store.get('stats:context:2026-11-30:inlets')).toBe(1);
  });

  it('inlets of different UTC days are summed apart', async () => {
    let time = DAY;
    const stats = createContextStats(store, () => time, 60_000);
    await stats.record(inlet);
    time += 86_400_000;
    await stats.record(inlet);
    await stats.record(inlet);
    const days = await stats.daily('2026-11-30', '2026-12-02');
    expect(days.map((day) => day.inlets)).toEqual([1, 2]);
  });
});
