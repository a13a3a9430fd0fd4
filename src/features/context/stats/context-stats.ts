import type { StateStore } from '../../../state/types.js';
import { daysBetween } from '../../../domain/usage/day-range.js';
import { utcDay } from '../../../domain/usage/daily-usage.js';
import type { ContextStats, ContextStatsDay } from '../../../runtime/host/shipped-service-keys.js';

/** Buffered sums reach the store within this long (or at the next read, or at shutdown). */
export const CONTEXT_STATS_FLUSH_MS = 1000;

const FIELDS = [
  'inlets',
  'tokensBefore',
  'tokensAfter',
  'kept',
  'summarized',
  'dropped',
  'summarizerCalls',
  'cacheHits',
] as const;
type Field = (typeof FIELDS)[number];
/** Days are kept for a little over a year (the TTL is set when a day's counter is created). */
const KEEP_MS = 400 * 86_400_000;
const keyOf = (day: string, field: string) => `stats:context:${day}:${field}`;

/**
 * Context statistics on the state store: one atomic counter per UTC day and field
 * (`stats:context:<day>:<field>`), so a range reads days × 8 counters in one round trip. Inlets
 * add to sums in memory, written at most every `flushMs` as one increment per day and field:
 * a counter write per inlet and field was the largest cost of a small chat's inlet (eight
 * SQLite transactions). A read writes the buffer first; a write that fails puts its sums back
 * for the next flush; a crash loses at most `flushMs` of statistics (numbers, never chat data).
 */
export function createContextStats(
  store: StateStore,
  now: () => number = Date.now,
  flushMs = CONTEXT_STATS_FLUSH_MS,
): ContextStats {
  let pending = new Map<string, Record<Field, number>>();
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();

  const add = (day: string, amounts: Record<Field, number>) => {
    const sums = pending.get(day) ?? Object.fromEntries(FIELDS.map((field) => [field, 0]));
    for (const field of FIELDS) sums[field] += amounts[field];
    pending.set(day, sums as Record<Field, number>);
  };

  const write = async () => {
    const batch = pending;
    pending = new Map();
    for (const [day, sums] of batch) {
      const fields = FIELDS.filter((field) => sums[field] !== 0);
      const results = await Promise.allSettled(
        fields.map((field) => store.increment(keyOf(day, field), sums[field], { ttlMs: KEEP_MS })),
      );
      // What did not reach the store goes back into the buffer for the next flush.
      const failed = Object.fromEntries(FIELDS.map((field) => [field, 0])) as Record<Field, number>;
      results.forEach((result, index) => {
        if (result.status === 'rejected') failed[fields[index]!] = sums[fields[index]!];
      });
      if (results.some((result) => result.status === 'rejected')) {
        add(day, failed);
        schedule();
      }
    }
  };

  const flush = (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    writing = writing.then(write, write);
    return writing;
  };

  function schedule() {
    if (timer) return;
    timer = setTimeout(() => void flush(), flushMs);
    timer.unref();
  }

  return {
    async record(stats, time = now()) {
      add(utcDay(time), { inlets: 1, ...stats });
      schedule();
    },
    flush,
    async daily(fromDay, toDay) {
      await flush();
      const days = daysBetween(fromDay, toDay);
      const values = await store.getMany<number>(days.flatMap((day) => FIELDS.map((field) => keyOf(day, field))));
      return days.map((day, index) => {
        const entry = { day } as ContextStatsDay;
        FIELDS.forEach((field, position) => {
          const value = values[index * FIELDS.length + position];
          entry[field] = typeof value === 'number' ? value : 0;
        });
        return entry;
      });
    },
  };
}
