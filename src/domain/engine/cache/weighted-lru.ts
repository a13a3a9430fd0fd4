/** Share of the capacity freed at once when the cache overflows. */
const EVICT_SHARE = 0.1;

/**
 * Bounded map with least-recently-used eviction, bounded by the summed weight of its values
 * (1 per entry, or e.g. the slots of a word table). A hit only stamps the entry (no Map
 * reordering, so a warm request costs one lookup per message); on overflow the least
 * recently used entries go in one batch, freeing the overflow or a tenth of the capacity, whichever is more
 * (amortised O(log n)).
 */
export class WeightedLru<V> {
  private readonly entries = new Map<string, { value: V; used: number; weight: number }>();
  private clock = 0;
  private held = 0;

  /**
   * @param capacity maximum summed weight kept.
   * @param weigh weight of one value (default 1: the capacity counts entries).
   */
  constructor(
    private readonly capacity: number,
    private readonly weigh: (value: V) => number = () => 1,
  ) {}

  /** The cached value, marked as most recently used. */
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    entry.used = ++this.clock;
    return entry.value;
  }

  /** Stores a value, evicting the least recently used entries when over capacity. */
  set(key: string, value: V): void {
    const previous = this.entries.get(key);
    if (previous) this.held -= previous.weight;
    const weight = this.weigh(value);
    this.entries.set(key, { value, used: ++this.clock, weight });
    this.held += weight;
    if (this.held > this.capacity) this.evict();
  }

  /** Number of cached entries. */
  get size(): number {
    return this.entries.size;
  }

  /** Summed weight held (the bounded quantity). */
  get weight(): number {
    return this.held;
  }

  private evict(): void {
    // Free at least the overflow, and at least a tenth of the capacity, so eviction stays rare.
    const target = this.held - Math.max(this.held - this.capacity, Math.floor(this.capacity * EVICT_SHARE));
    const oldest = [...this.entries].sort((a, b) => a[1].used - b[1].used);
    for (const [key, entry] of oldest) {
      if (this.held <= target) break;
      this.entries.delete(key);
      this.held -= entry.weight;
    }
  }
}
