import { countWord } from './count-word.js';

/** Counts the query terms in one document, writing `counts[offset + termIndex]`. */
export type TermCounter = (text: string, counts: Float64Array, offset: number) => void;

const ASCII_WORD = /^[a-z0-9_]+$/;

/**
 * A counter for a fixed set of lower-case terms. ASCII terms are found in one pass per
 * document by a single case-insensitive alternation regex (no lower-casing copy); any
 * non-ASCII term is counted by whole-word indexOf scans on the lower-cased text.
 */
export function termCounter(terms: readonly string[]): TermCounter {
  const index = new Map(terms.map((term, position) => [term, position] as const));
  const ascii = terms.filter((term) => ASCII_WORD.test(term));
  const other = terms.filter((term) => !ASCII_WORD.test(term));
  const pattern = ascii.length > 0 ? new RegExp(`\\b(?:${ascii.slice().sort((a, b) => b.length - a.length).join('|')})\\b`, 'gi') : undefined;
  return (text, counts, offset) => {
    if (pattern) {
      pattern.lastIndex = 0;
      for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
        const word = match[0];
        counts[offset + (index.get(word) ?? index.get(word.toLowerCase()))!]! += 1;
      }
    }
    if (other.length > 0) {
      const lower = text.toLowerCase();
      for (const term of other) counts[offset + index.get(term)!]! += countWord(lower, term);
    }
  };
}
