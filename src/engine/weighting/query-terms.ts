import { uniqueTerms } from './tokenize-terms.js';

/** Most frequent English function words: they match everything and say nothing. */
const STOP_WORDS = new Set(
  ('a an and are as at be but by can could did do does for from had has have how i if in into is it its me my no not of on or our ' +
    'so that the their them then there these they this to was we were what when where which who why will with would you your')
    .split(' '),
);

/** At most this many query words are scored (the longest ones), so a pasted essay stays linear. */
export const MAX_QUERY_TERMS = 24;

/**
 * The words of a query worth scoring: distinct, lower-case, stop words removed (unless
 * nothing else is left), capped at the longest MAX_QUERY_TERMS.
 */
export function queryTerms(query: string): string[] {
  const all = uniqueTerms(query);
  const content = all.filter((term) => !STOP_WORDS.has(term));
  const terms = content.length > 0 ? content : all;
  if (terms.length <= MAX_QUERY_TERMS) return terms;
  return terms
    .map((term, order) => ({ term, order }))
    .sort((a, b) => b.term.length - a.term.length || a.order - b.order)
    .slice(0, MAX_QUERY_TERMS)
    .map(({ term }) => term);
}
