import { uniqueTerms } from './tokenize-terms.js';
import { analyzeTerm } from './analyze-term.js';

/** At most this many query terms are scored (the longest ones), so a pasted essay stays linear. */
export const MAX_QUERY_TERMS = 24;

/**
 * The terms of a query worth scoring: distinct indexed terms (stop words out, English
 * stemmed; see `analyzeTerm`), capped at the longest MAX_QUERY_TERMS.
 */
export function queryTerms(query: string): string[] {
  const terms = uniqueTerms(query);
  if (terms.length <= MAX_QUERY_TERMS) return terms;
  return terms
    .map((term, order) => ({ term, order }))
    .sort((a, b) => b.term.length - a.term.length || a.order - b.order)
    .slice(0, MAX_QUERY_TERMS)
    .map(({ term }) => term);
}

const WORD = /[\p{L}\p{N}_]+/gu;
const CAPITALISED = /^\p{Lu}/u;

/**
 * The query terms that soft matching may widen: those of words not written with a capital
 * (names — "Melanie", "Paris" — are close to other names in word vectors, and a question about
 * one person must not pull in another's messages).
 */
export function expandableTerms(query: string): Set<string> {
  const terms = new Set<string>();
  for (const match of query.matchAll(WORD)) {
    if (CAPITALISED.test(match[0])) continue;
    const term = analyzeTerm(match[0].toLowerCase());
    if (term) terms.add(term);
  }
  return terms;
}
