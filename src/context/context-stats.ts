import type { StateStore } from '../state/types.js';
import { daysBetween } from '../usage/day-range.js';
import { utcDay } from '../usage/daily-usage.js';

/** What one context inlet did, in numbers only (never chat text). */
export interface ContextInletStats {
  tokensBefore: number;
  tokensAfter: number;
  kept: number;
  summarized: number;
  dropped: number;
  summarizerCalls: number;
  cacheHits: number;
}

/** One UTC day of context statistics: the sums of its inlets. */
export interface ContextStatsDay extends ContextInletStats {
  day: string;
  inlets: number;
}

/** Per-day context statistics, a host service: the context filter records, the dashboard reads. */
export interface ContextStats {
  /** Add one inlet's numbers to its UTC day (atomic counters in the state store). */
  record(stats: ContextInletStats, time?: number): Promise<void>;
  /** Every UTC day in [fromDay, toDay), oldest first, zero-filled. */
  daily(fromDay: string, toDay: string): Promise<ContextStatsDay[]>;
}

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
/** Days are kept for a little over a year (the TTL is set when a day's counter is created). */
const KEEP_MS = 400 * 86_400_000;
const keyOf = (day: string, field: string) => `stats:context:${day}:${field}`;

/**
 * Context statistics on the state store: one atomic counter per UTC day and field
 * (`stats:context:<day>:<field>`), incremented as inlets run, so a range reads
 * days × 8 counters in one round trip instead of anything per request.
 */
export function createContextStats(store: StateStore, now: () => number = Date.now): ContextStats {
  return {
    async record(stats, time = now()) {
      const day = utcDay(time);
      const amounts: Record<(typeof FIELDS)[number], number> = { inlets: 1, ...stats };
      await Promise.all(
        FIELDS.filter((field) => amounts[field] !== 0).map((field) =>
          store.increment(keyOf(day, field), amounts[field], { ttlMs: KEEP_MS }),
        ),
      );
    },
    async daily(fromDay, toDay) {
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
