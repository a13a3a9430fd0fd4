import { describe, expect, it } from 'vitest';
import { parseLabels } from '../../src/features/context/compress/scoring/parse-labels.js';

describe('parseLabels', () => {
  it.each([
    ['a JSON array of letters', '["K","H","M","S","D"]'],
    ['a JSON array of words inside a code fence', '```json\n["keep", "helpful", "maybe", "skip", "drop"]\n```'],
    ['a JSON object keyed by position', '{"1": "K", "2": "H", "3": "M", "4": "S", "5": "D"}'],
    [
      'a JSON object with a labels array, after a think block',
      '<think>hmm [x]</think>{"labels": ["K","H","M","S","D"]}',
    ],
    ['index: label lines', '1: K\n2: Helpful\n3. M\n4) skip\n5 - D'],
    ['numbered lines with markdown', '[1] **Keep**\n[2] **Helpful**\n[3] **Maybe**\n[4] **Skip**\n[5] **Drop**'],
    ['a bare sequence', 'K H M S D'],
    ['a bare comma sequence of words', 'Keep, Helpful, Maybe, Skip, Drop'],
    ['an unspaced letter run', 'KHMSD'],
  ])('reads %s', (_name, answer) => {
    expect(parseLabels(answer, 5)).toEqual(['K', 'H', 'M', 'S', 'D']);
  });

  it('leaves positions it cannot read undefined and ignores extra labels', () => {
    expect(parseLabels('1: K\n3: D\n9: K', 3)).toEqual(['K', undefined, 'D']);
    expect(parseLabels('["K","K","K","K"]', 2)).toEqual(['K', 'K']);
  });

  it('finds nothing in prose without labels (lower-case letters are not labels)', () => {
    expect(parseLabels("I'm not sure what you mean, sorry.", 3)).toEqual([undefined, undefined, undefined]);
  });
});
