import { createRequire } from 'node:module';
import { Tiktoken } from 'js-tiktoken/lite';
import { describe, expect, it } from 'vitest';
import { rankTable } from '../../src/domain/engine/tokens/rank-table.js';

const require = createRequire(import.meta.url);
type TiktokenFile = ConstructorParameters<typeof Tiktoken>[0];
const rankFile = (name: string): TiktokenFile => {
  const loaded = require(`js-tiktoken/ranks/${name}`) as { default?: TiktokenFile } & Partial<TiktokenFile>;
  return loaded.default ?? (loaded as TiktokenFile);
};

describe('the rank table read from a js-tiktoken rank file', () => {
  // o200k, the default encoding, entry by entry (cl100k's counts are compared with js-tiktoken's in tokens.test.ts).
  it('o200k_base: the same byte sequence → rank map as js-tiktoken builds', () => {
    const file = rankFile('o200k_base');
    const ours = rankTable(file);
    const theirs = (new Tiktoken(file) as unknown as { rankMap: Map<string, number> }).rankMap;
    expect(ours.patStr).toBe(file.pat_str);
    expect(ours.size).toBe(theirs.size);
    const differing: string[] = [];
    for (const [key, rank] of theirs) {
      const bytes = Uint8Array.from(key.split(','), Number);
      if (ours.rankOf(bytes, 0, bytes.length) !== rank) differing.push(key);
    }
    expect(differing).toEqual([]);
    // and nothing else: every entry of ours is one of theirs with the same rank
    const extra = [...ours.entries()].filter(([key, rank]) => theirs.get(key) !== rank);
    expect(extra).toEqual([]);
  });

  it('decodes padded and unpadded tokens, multi-byte ones included, and ranks several lines', () => {
    const token = (bytes: number[]) => Buffer.from(bytes).toString('base64');
    const file = {
      pat_str: 'x',
      bpe_ranks: `! 0 ${token([33])} ${token([0, 255])} ${token([226, 130, 172])}\n! 10 ${token([104, 101, 108, 108])}\n`,
    };
    expect([...rankTable(file).entries()]).toEqual([
      ['33', 0],
      ['0,255', 1],
      ['226,130,172', 2],
      ['104,101,108,108', 10],
    ]);
  });

  it('looks a sequence up inside a larger buffer, tells tokens from non-tokens, and keeps the last rank of a repeat', () => {
    const token = (bytes: number[]) => Buffer.from(bytes).toString('base64');
    const file = {
      pat_str: 'x',
      bpe_ranks: `! 0 ${token([1, 2])} ${token([3])} ${token([1, 2])}\n! 7 ${token([2, 1])}`,
    };
    const table = rankTable(file);
    expect(table.size).toBe(3);
    const buffer = Uint8Array.from([9, 1, 2, 3, 2, 1]);
    expect(table.rankOf(buffer, 1, 3)).toBe(2); // [1, 2]: its later rank, js-tiktoken's Map.set semantics
    expect(table.rankOf(buffer, 3, 4)).toBe(1); // [3]
    expect(table.rankOf(buffer, 4, 6)).toBe(7); // [2, 1]
    expect(table.rankOf(buffer, 0, 1)).toBe(-1); // [9]
    expect(table.rankOf(buffer, 1, 4)).toBe(-1); // [1, 2, 3]
    expect(table.rankOf(buffer, 2, 2)).toBe(-1); // empty
  });
});
