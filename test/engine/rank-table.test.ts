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
    expect(ours.rankMap.size).toBe(theirs.size);
    const differing: string[] = [];
    for (const [key, rank] of theirs) if (ours.rankMap.get(key) !== rank) differing.push(key);
    expect(differing).toEqual([]);
  });

  it('decodes padded and unpadded tokens, multi-byte ones included, and ranks several lines', () => {
    const token = (bytes: number[]) => Buffer.from(bytes).toString('base64');
    const file = {
      pat_str: 'x',
      bpe_ranks: `! 0 ${token([33])} ${token([0, 255])} ${token([226, 130, 172])}\n! 10 ${token([104, 101, 108, 108])}\n`,
    };
    expect([...rankTable(file).rankMap]).toEqual([
      ['33', 0],
      ['0,255', 1],
      ['226,130,172', 2],
      ['104,101,108,108', 10],
    ]);
  });
});
