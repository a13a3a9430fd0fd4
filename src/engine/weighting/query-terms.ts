import { uniqueTerms } from './tokenize-terms.js';

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
