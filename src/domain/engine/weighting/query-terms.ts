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

/** What may open a sentence before its first word: quotes, brackets, list and markdown marks, spaces. */
const OPENERS = /[\s"'“‘«([{*_>#~`-]/u;
/** What ends a sentence. */
const ENDERS = /[.!?:;\n]/u;

/** True when the word at `at` starts the query or a sentence in it (openers such as `"`, `- `, `**` skipped). */
function startsSentence(query: string, at: number): boolean {
  let before = at - 1;
  while (before >= 0 && OPENERS.test(query[before]!)) {
    if (query[before] === '\n') return true;
    before -= 1;
  }
  return before < 0 || ENDERS.test(query[before]!);
}

/**
 * The terms of the names in a query: words written with a capital that do not start a sentence
 * ("What did **Melanie** paint after **Paris**?", "Why does **UserService** time out?"), stemmed like
 * any term; stop words ("I") are not names. A capital after an abbreviation's full stop ("Mr. Smith")
 * counts as a sentence start: that name is missed, never another word taken for one.
 */
export function namedTerms(query: string): string[] {
  const terms = new Set<string>();
  for (const match of query.matchAll(WORD)) {
    if (!CAPITALISED.test(match[0]) || startsSentence(query, match.index)) continue;
    const term = analyzeTerm(match[0].toLowerCase());
    if (term) terms.add(term);
  }
  return [...terms];
}

/**
 * Terms of two adjacent query words written as one ("ice cream" → "icecream", "week end" →
 * "weekend"), both words indexed (no stop word between or in them), stemmed like any term:
 * chats write compounds both ways, and neither spelling's terms match the other's.
 */
export function adjacentCompounds(query: string): string[] {
  const words = [...query.toLowerCase().matchAll(WORD)].map((match) => match[0]);
  const compounds: string[] = [];
  for (let at = 0; at + 1 < words.length; at += 1) {
    if (!analyzeTerm(words[at]!) || !analyzeTerm(words[at + 1]!)) continue;
    const term = analyzeTerm(words[at]! + words[at + 1]!);
    if (term) compounds.push(term);
  }
  return compounds;
}
