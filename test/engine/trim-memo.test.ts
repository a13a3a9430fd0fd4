import { describe, expect, it } from 'vitest';
import { loadEncoder } from '../../src/domain/engine/index.js';
import { forgetTrimAnalyses, trimText } from '../../src/domain/engine/trim/trim-text.js';
import { queryTerms } from '../../src/domain/engine/weighting/query-terms.js';

/**
 * A long text's analysis (lines, the lines holding each term, token costs) is remembered by the caller's key and
 * reused for the next question: the trimmed text is the same as with nothing remembered, byte for byte; a key
 * reused for another text, or another token counter, is not mistaken for the remembered one.
 */
const encoder = loadEncoder('o200k_base');
const count = (text: string) => encoder.count(text);
const terms = (question: string) => new Set(queryTerms(question));

const log = Array.from({ length: 2000 }, (_, index) =>
  index % 397 === 11
    ? `Dec 04 11:${String(index % 60).padStart(2, '0')}:17 host kernel: disk${index}: controller overheated (error E${index})`
    : `Dec 04 11:${String(index % 60).padStart(2, '0')}:00 host systemd[1]: Started session ${index} of user root.`,
).join('\n');
const json = JSON.stringify(
  Array.from({ length: 300 }, (_, index) => ({
    title: `Result ${index}`,
    snippet: `page ${index} about topic${index % 7}`,
  })),
);
const questions = ['Which disk overheated?', 'What was error E1202?', 'Which session was 1500?', 'topic3 pages?'];

describe('trimText remembers a text’s analysis', () => {
  for (const [name, text] of [
    ['lines', log],
    ['JSON items', json],
  ] as const) {
    it(`${name}: every question gives the same trim with the analysis remembered as without`, () => {
      const memo = { key: `memo-${name}`, counter: 'o200k_base:1' };
      forgetTrimAnalyses();
      for (const question of [...questions, ...questions]) {
        const fresh = trimText(text, terms(question), 600, count);
        const remembered = trimText(text, terms(question), 600, count, undefined, memo);
        expect(fresh).toBeDefined();
        expect(remembered).toEqual(fresh);
        // With the echo loop's entities too (their pieces are remembered as well).
        const echo = { E1202: 1, topic5: 0.5, 'Result 17': 1 };
        expect(trimText(text, terms(question), 600, count, echo, memo)).toEqual(
          trimText(text, terms(question), 600, count, echo),
        );
      }
    });
  }

  it('a key reused for another text or another token counter is not taken for the remembered analysis', () => {
    forgetTrimAnalyses();
    const memo = { key: 'shared', counter: 'o200k_base:1' };
    const first = trimText(log, terms('Which disk overheated?'), 600, count, undefined, memo)!;
    const other = `${log}\nDec 04 12:00:00 host kernel: disk9999: controller overheated (error E9999)`;
    const second = trimText(other, terms('Which disk overheated?'), 600, count, undefined, memo)!;
    expect(second).toEqual(trimText(other, terms('Which disk overheated?'), 600, count));
    expect(second.text).not.toBe(first.text);
    const doubled = (text: string) => 2 * count(text);
    const recounted = trimText(other, terms('Which disk overheated?'), 600, doubled, undefined, {
      key: 'shared',
      counter: 'o200k_base:2',
    });
    expect(recounted).toEqual(trimText(other, terms('Which disk overheated?'), 600, doubled));
  });
});
