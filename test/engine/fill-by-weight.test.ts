import { describe, expect, it } from 'vitest';
import { fillByWeight, unitDensity } from '../../src/engine/selection/fill-by-weight.js';
import type { SelectionUnit } from '../../src/engine/selection/selection-algorithm.js';
import { planContext } from '../../src/engine/index.js';
import { assistant, user } from './fixtures/conversations.js';

/** Units from [tokens, weight] pairs, oldest first. */
function units(specs: Array<[tokens: number, weight: number]>): SelectionUnit[] {
  return specs.map(([tokens, weight], position) => ({ position, members: [position], role: position % 2 ? 'assistant' : 'user', tokens, weight, mandatory: false, excluded: false }));
}

/** Positions kept by a fill of `available` tokens. */
function fill(specs: Array<[number, number]>, available: number): number[] {
  const list = units(specs);
  const kept = list.map(() => false);
  fillByWeight(list, list.map((unit) => unit.weight), available, kept);
  return kept.flatMap((value, position) => (value ? [position] : []));
}

describe('density-aware fill (weight ÷ √tokens)', () => {
  it.each([
    ['two small relevant messages beat one big, equally relevant (and newer) one', [[50, 1], [50, 1], [100, 1], [10, 0.1]], 100, [0, 1]],
    ['a long, highly relevant message still beats short filler', [[400, 1], [20, 0.1]], 400, [0]],
    ['leftover room goes to what still fits', [[400, 1], [20, 0.1]], 420, [0, 1]],
    ['equal density: the newer unit first', [[40, 0.5], [40, 0.5], [10, 0.1]], 40, [1]],
    ['W5: all weights equal: newest first whatever the size', [[10, 1], [10, 1], [50, 1]], 50, [2]],
    ['W5: all weights equal, room for two', [[10, 1], [10, 1], [10, 1]], 20, [1, 2]],
  ] as Array<[string, Array<[number, number]>, number, number[]]>)('%s', (_name, specs, available, expected) => {
    expect(fill(specs, available)).toEqual(expected);
  });

  it('density is weight ÷ √tokens, a unit costing at least one token', () => {
    expect(unitDensity(1, 100)).toBeCloseTo(0.1);
    expect(unitDensity(0.5, 0)).toBe(0.5);
  });

  it('planContext (static weights, one message down-weighted by !weight): two short messages beat one long, newer one', () => {
    const messages = [user('my garden shed is blue'), assistant('blue garden shed, noted'), user(`garden shed: ${'the garden shed and more words '.repeat(6)}`), assistant('ok'), user('what colour is my garden shed?')];
    const ids = planContext({ messages }).plan.entries.map((entry) => entry.id);
    const plan = (maxTokens: number) => planContext({ messages, options: { algorithm: 'greedy', weighting: 'static', recent: 1, maxTokens, messageWeights: { [ids[3]!]: 0.1 } } }).plan;
    const full = plan(0).entries;
    expect(full[2]!.tokens).toBeGreaterThan(full[0]!.tokens + full[1]!.tokens);
    // Room for the long message alone, or for the two short ones.
    const room = full[2]!.tokens + full[4]!.tokens + 3;
    const kept = plan(room).entries.filter((entry) => entry.disposition === 'keep').map((entry) => entry.index);
    expect(kept).toContain(0);
    expect(kept).toContain(1);
    expect(kept).not.toContain(2);
  });
});
