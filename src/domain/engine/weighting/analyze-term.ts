import { stem } from 'porter2';
import { STOPWORDS } from './stopwords.js';

const ASCII_WORD = /^[a-z]+$/;
/** Memo of word → indexed term ('' = left out); cleared when it reaches this size. */
const MEMO_LIMIT = 200_000;
const memo = new Map<string, string>();

/**
 * The indexed form of one lower-cased word: '' for an English function word, the Porter2
 * stem for other English (a–z) words, the word itself otherwise (numbers, ids, other
 * scripts). Questions and messages go through the same function, so "painted" finds
 * "paintings" and "adopting" finds "adoption". Memoised: a chat repeats its words.
 */
export function analyzeTerm(word: string): string {
  let term = memo.get(word);
  if (term !== undefined) return term;
  if (STOPWORDS.has(word)) term = '';
  else if (word.length > 2 && ASCII_WORD.test(word)) term = stem(word);
  else term = word;
  if (memo.size >= MEMO_LIMIT) memo.clear();
  memo.set(word, term);
  return term;
}
