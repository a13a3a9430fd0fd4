import type { TermCache, TermCounts } from '../types.js';
import { WeightedLru } from '../cache/weighted-lru.js';

/**
 * Bounded cache of per-message word tables with least-recently-used eviction. The bound is
 * in table slots (12 bytes each), so long messages count for what they hold.
 */
export class LruTermCache extends WeightedLru<TermCounts> implements TermCache {
  /** @param capacity maximum table slots kept (default 2,000,000 ≈ 24 MB, ~15,000 typical messages). */
  constructor(capacity = 2_000_000) {
    super(capacity, (value) => value.keys.length);
  }

  /** Table slots held (the bounded quantity). */
  get slotCount(): number {
    return this.weight;
  }
}

/** The process-wide default, used when `PlanInput.termCache` is not given (memo only: scores never depend on it). */
export const sharedTermCache = new LruTermCache();
