import { uniqueTerms } from './tokenize-terms.js';

/** At most this many query words are scored (the longest ones), so a pasted essay stays linear. */
export const MAX_QUERY_TERMS = 24;

/**
 * The words of a query worth scoring: distinct, lower-case, capped at the longest
 * MAX_QUERY_TERMS. Function words are kept: BM25's idf already discounts them, and in
 * personal chats "my"/"I" are real evidence (removing them halved paraphrase recall).
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
