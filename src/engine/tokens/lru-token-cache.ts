import type { TokenCache } from '../types.js';

/** Share of the capacity evicted at once when the cache overflows. */
const EVICT_SHARE = 0.1;

/**
 * Bounded token-count cache with least-recently-used eviction. A hit only stamps the entry
 * (no Map reordering, so a warm request costs one lookup per message); on overflow the
 * least recently used tenth is evicted in one batch, keeping eviction amortised O(log n).
 */
export class LruTokenCache implements TokenCache {
  private readonly entries = new Map<string, { tokens: number; used: number }>();
  private clock = 0;

  /** @param capacity maximum number of entries kept (default 50,000). */
  constructor(private readonly capacity = 50_000) {}

  /** The cached count, marked as most recently used. */
  get(key: string): number | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    entry.used = ++this.clock;
    return entry.tokens;
  }

  /** Stores a count, evicting the least recently used entries when full. */
  set(key: string, tokens: number): void {
    const entry = this.entries.get(key);
    if (entry) {
      entry.tokens = tokens;
      entry.used = ++this.clock;
      return;
    }
    this.entries.set(key, { tokens, used: ++this.clock });
    if (this.entries.size > this.capacity) this.evict();
  }

  /** Number of cached entries. */
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
