import { describe, expect, it } from 'vitest';
import { fillByWeight } from '../../src/domain/engine/selection/fill-by-weight.js';
import type { SelectionUnit } from '../../src/domain/engine/selection/selection-algorithm.js';

/** Units from [tokens, weight] pairs, oldest first. */
function units(specs: Array<[tokens: number, weight: number]>): SelectionUnit[] {
  return specs.map(([tokens, weight], position) => ({
    position,
    members: [position],
    role: position % 2 ? 'assistant' : 'user',
    tokens,
    weight,
    mandatory: false,
    excluded: false,
  }));
}

/** Positions kept by a fill of `available` tokens, and the tokens used. */
function fill(specs: Array<[number, number]>, available: number): { kept: number[]; used: number } {
  const list = units(specs);
  const kept = list.map(() => false);
  const used = fillByWeight(
    list,
    list.map((unit) => unit.weight),
    available,
    kept,
  );
  return { kept: kept.flatMap((value, position) => (value ? [position] : [])), used };
}

describe('fill by weight', () => {
  it.each([
    [
      'a long, relevant message beats two short, less relevant ones',
      [
        [50, 0.5],
        [50, 0.5],
        [100, 1],
      ],
      100,
      [2],
    ],
    [
      'leftover room goes to what still fits, best first',
      [
        [400, 1],
        [20, 0.1],
        [30, 0.2],
      ],
      430,
      [0, 2],
    ],
    [
      'equal weights: the newer unit first',
      [
        [40, 0.5],
        [40, 0.5],
        [10, 0.1],
      ],
      40,
      [1],
    ],
    [
      'all weights equal: newest first whatever the size',
      [
        [10, 1],
        [10, 1],
        [50, 1],
      ],
      50,
      [2],
    ],
    [
      'all weights equal, room for two',
      [
        [10, 1],
        [10, 1],
        [10, 1],
      ],
      20,
      [1, 2],
    ],
    [
      'a unit that does not fit is skipped, not a stop',
      [
        [10, 0.2],
        [500, 1],
        [10, 0.5],
      ],
      20,
      [0, 2],
    ],
  ] as Array<[string, Array<[number, number]>, number, number[]]>)('%s', (_name, specs, available, expected) => {
    expect(fill(specs, available).kept).toEqual(expected);
  });

  it('returns the tokens it used and never more than the room', () => {
    const result = fill(
      [
        [30, 0.3],
        [40, 0.9],
        [50, 0.5],
      ],
      85,
    );
    expect(result.kept).toEqual([0, 1]);
    expect(result.used).toBe(70);
  });

  it('leaves units already kept alone (they were paid for elsewhere)', () => {
    const list = units([
      [10, 1],
      [10, 0.5],
    ]);
    const kept = [true, false];
    expect(fillByWeight(list, [1, 0.5], 10, kept)).toBe(10);
    expect(kept).toEqual([true, true]);
  });
});
