import type { TokenCache } from '../types.js';

/** Least-recently-used token-count cache (a Map in access order). */
export class LruTokenCache implements TokenCache {
  private readonly entries = new Map<string, number>();

  /** @param capacity maximum number of entries kept (default 50,000). */
  constructor(private readonly capacity = 50_000) {}

  /** The cached count, refreshed as most recently used. */
  get(key: string): number | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /** Stores a count, evicting the least recently used entry when full. */
  set(key: string, tokens: number): void {
    this.entries.delete(key);
    this.entries.set(key, tokens);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
  }

  /** Number of cached entries. */
  get size(): number {
    return this.entries.size;
  }
}
