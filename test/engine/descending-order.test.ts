import { describe, expect, it } from 'vitest';
import { descendingOrder } from '../../src/domain/engine/selection/descending-order.js';
import { prng as random } from './fixtures/conversations.js';

/** The comparator sort it replaces. */
const reference = (keys: number[]) => {
  const clean = keys.map((key) => (key >= 0 && Number.isFinite(key) ? key : 0));
  return [...clean.keys()].sort((a, b) => clean[b]! - clean[a]! || b - a);
};

describe('descendingOrder', () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8])(
    'matches the comparator sort on weights with ties and tiny gaps (seed %i)',
    (seed) => {
      const next = random(seed);
      const keys = Array.from({ length: 1 + Math.floor(next() * 900) }, () => {
        const pick = next();
        if (pick < 0.3) return 0.1; // the relevance floor: many exact ties
        if (pick < 0.4) return 0.1 + Number.EPSILON * 4;
        if (pick < 0.45) return 0;
        return next() * 2.5;
      });
      expect([...descendingOrder(keys)]).toEqual(reference(keys));
    },
  );

  it('ties go to the newer position; invalid keys sort as 0', () => {
    expect([...descendingOrder([1, 2, 1, 2])]).toEqual([3, 1, 2, 0]);
    expect([...descendingOrder([Number.NaN, -1, 0.5, Number.POSITIVE_INFINITY, -0])]).toEqual([2, 4, 3, 1, 0]);
    expect([...descendingOrder([])]).toEqual([]);
  });

  it('stays right when a later call is shorter or longer than the last (reused buffers)', () => {
    const long = Array.from({ length: 2000 }, (_, at) => (at * 7919) % 1000);
    expect([...descendingOrder(long)]).toEqual(reference(long));
    expect([...descendingOrder([3, 1, 2])]).toEqual([0, 2, 1]);
    expect([...descendingOrder(long)]).toEqual(reference(long));
  });
});

describe('descendingOrder on orders built against its pivot choice', () => {
  it('a median-of-three killer of 20k keys is sorted right (the comparison fallback takes over)', () => {
    // Musser's median-of-3 killer, as positions of a descending sort: small keys where the pivots are picked.
    const n = 20_000;
    const keys = new Array<number>(n);
    const half = n / 2;
    for (let i = 1; i <= half; i += 1) {
      if (i % 2 === 1) {
        keys[i - 1] = n - i;
        keys[i] = n - (half + i);
      }
      keys[half + i - 1] = n - 2 * i;
    }
    const order = [...descendingOrder(keys)];
    expect(order).toEqual(reference(keys));
  });
});
