import type { TermCache, TermCounts } from '../types.js';

/** Share of the capacity evicted at once when the cache overflows. */
const EVICT_SHARE = 0.1;

/**
 * Bounded cache of per-message word tables with least-recently-used eviction (same scheme
 * as `LruTokenCache`: a hit only stamps the entry; overflow evicts the oldest at once, down
 * to 90% of the capacity). The bound is in table slots (12 bytes each), so long messages
 * count for what they hold.
 */
export class LruTermCache implements TermCache {
  private readonly entries = new Map<string, { value: TermCounts; used: number }>();
  private clock = 0;
  private slots = 0;

  /** @param capacity maximum table slots kept (default 2,000,000 ≈ 24 MB, ~15,000 typical messages). */
  constructor(private readonly capacity = 2_000_000) {}

  /** The cached counts, marked as most recently used. */
  get(key: string): TermCounts | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    entry.used = ++this.clock;
    return entry.value;
  }

  /** Stores counts, evicting the least recently used entries when full. */
  set(key: string, value: TermCounts): void {
    const previous = this.entries.get(key);
    if (previous) this.slots -= previous.value.keys.length;
    this.entries.set(key, { value, used: ++this.clock });
    this.slots += value.keys.length;
    if (this.slots > this.capacity) this.evict();
  }

  /** Number of cached messages. */
  get size(): number {
    return this.entries.size;
  }

  /** Table slots held (the bounded quantity). */
  get slotCount(): number {
    return this.slots;
  }

  /** Drops least recently used entries until at most (1 − EVICT_SHARE) × capacity slots are held. */
  private evict(): void {
    const target = Math.floor(this.capacity * (1 - EVICT_SHARE));
    const oldest = [...this.entries].sort((a, b) => a[1].used - b[1].used);
    for (const [key, entry] of oldest) {
      if (this.slots <= target) break;
      this.entries.delete(key);
      this.slots -= entry.value.keys.length;
    }
  }
}

/** The process-wide default, used when `PlanInput.termCache` is not given (memo only: scores never depend on it). */
export const sharedTermCache = new LruTermCache();
