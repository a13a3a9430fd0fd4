import type { TokenCache } from '../types.js';
import { WeightedLru } from '../cache/weighted-lru.js';

/** Bounded token-count cache with least-recently-used eviction (capacity in entries). */
export class LruTokenCache extends WeightedLru<number> implements TokenCache {
  /** @param capacity maximum number of entries kept (default 50,000). */
  constructor(capacity = 50_000) {
    super(capacity);
  }
}
