import type { TermCache, TermCounts } from '../types.js';

/** Share of the capacity evicted at once when the cache overflows. */
const EVICT_SHARE = 0.1;

/**
 * Bounded cache of per-message word counts with least-recently-used eviction (same scheme
 * as `LruTokenCache`: a hit only stamps the entry; overflow evicts the oldest tenth at once).
 */
export class LruTermCache implements TermCache {
  private readonly entries = new Map<string, { value: TermCounts; used: number }>();
  private clock = 0;

  /** @param capacity maximum number of messages kept (default 10,000, a few MB). */
  constructor(private readonly capacity = 10_000) {}

  /** The cached counts, marked as most recently used. */
  get(key: string): TermCounts | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    entry.used = ++this.clock;
    return entry.value;
  }

  /** Stores counts, evicting the least recently used entries when full. */
  set(key: string, value: TermCounts): void {
    this.entries.set(key, { value, used: ++this.clock });
    if (this.entries.size > this.capacity) this.evict();
  }

  /** Number of cached messages. */
  get size(): number {
    return this.entries.size;
  }

  /** Drops the least recently used EVICT_SHARE of the capacity (at least the overflow). */
  private evict(): void {
    const count = Math.max(this.entries.size - this.capacity, Math.floor(this.capacity * EVICT_SHARE));
    const oldest = [...this.entries].sort((a, b) => a[1].used - b[1].used).slice(0, count);
    for (const [key] of oldest) this.entries.delete(key);
  }
}

/** The process-wide default, used when `PlanInput.termCache` is not given (memo only: scores never depend on it). */
export const sharedTermCache = new LruTermCache();
