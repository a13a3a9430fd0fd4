import type { Ledger } from '../../domain/usage/types.js';

/** Replies a user's median completion is taken over. */
export const RECENT_REPLIES = 20;
/** How long a replica reuses a user's median before reading the ledger again. */
export const RECENT_TTL_MS = 60_000;
/** Users whose median a replica keeps (the oldest entry goes first). */
const MAX_USERS = 10_000;

/** The median of positive counts, rounded up; undefined when there are none. */
export function medianOf(values: readonly number[]): number | undefined {
  const sorted = values.filter((value) => Number.isFinite(value) && value > 0).sort((a, b) => a - b);
  if (sorted.length === 0) return undefined;
  const middle = sorted.length >> 1;
  return Math.ceil(sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2);
}

/**
 * Each user's median completion tokens over their last RECENT_REPLIES chat replies (background tasks
 * left out: their short answers say nothing about chat replies), read from the ledger's newest records
 * (one bounded page) and kept per replica for RECENT_TTL_MS. An unreadable ledger gives undefined.
 */
export class RecentCompletions {
  /** Per user: when the median was read and the read itself (concurrent inlets of one user share one read). */
  private readonly cache = new Map<string, { at: number; median: Promise<number | undefined> }>();

  median(ledger: Ledger, userId: string, now: number): Promise<number | undefined> {
    const cached = this.cache.get(userId);
    if (cached && now - cached.at < RECENT_TTL_MS && now >= cached.at) return cached.median;
    const median = read(ledger, userId).then(
      (value) => value,
      () => undefined, // an unreadable ledger: no median (the valve applies)
    );
    this.cache.delete(userId);
    this.cache.set(userId, { at: now, median });
    if (this.cache.size > MAX_USERS) this.cache.delete(this.cache.keys().next().value!);
    return median;
  }
}

async function read(ledger: Ledger, userId: string): Promise<number | undefined> {
  const page = await ledger.latest({ userId }, RECENT_REPLIES * 2);
  const replies = page.records.filter((record) => !record.task).slice(-RECENT_REPLIES);
  return medianOf(replies.map((record) => record.completionTokens));
}
