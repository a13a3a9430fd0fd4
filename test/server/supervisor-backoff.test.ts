import { describe, expect, it } from 'vitest';
import { Backoff } from '../../src/supervisor/backoff.js';

describe('supervisor back-off', () => {
  const policy = { minDelayMs: 500, maxDelayMs: 4000, healthyAfterMs: 30_000, maxQuickCrashes: 5 };

  it('doubles the delay for crashes in a row, capped, and gives up on a crash loop', () => {
    const backoff = new Backoff(policy);
    expect([1, 2, 3, 4, 5].map(() => backoff.next(100))).toEqual([500, 1000, 2000, 4000, 4000]);
    expect(backoff.next(100)).toBeUndefined();
  });

  it('starts over after a server that ran long enough', () => {
    const backoff = new Backoff(policy);
    backoff.next(100);
    backoff.next(100);
    expect(backoff.next(60_000)).toBe(500);
  });

  it('never gives up on crashes a filter explains; they still back off, and do not count towards giving up', () => {
    const backoff = new Backoff(policy);
    expect(Array.from({ length: 8 }, () => backoff.next(100, true))).toEqual([
      500, 1000, 2000, 4000, 4000, 4000, 4000, 4000,
    ]);
    expect([1, 2, 3, 4, 5].map(() => backoff.next(100))).toEqual([4000, 4000, 4000, 4000, 4000]);
    expect(backoff.next(100)).toBeUndefined();
  });
});
