import { analyzeTerm } from './analyze-term.js';

const WORD = /[\p{L}\p{N}_]+/gu;

/** Calls `visit` for every indexed term of `text`: lower-cased words (letters, digits, `_`), stop words out, English stemmed. */
export function forEachTerm(text: string, visit: (term: string) => void): void {
  for (const match of text.toLowerCase().matchAll(WORD)) {
    const term = analyzeTerm(match[0]);
    if (term) visit(term);
  }
}

/** Distinct indexed terms of `text`, in first-seen order. */
export function uniqueTerms(text: string): string[] {
  const seen = new Set<string>();
  forEachTerm(text, (term) => seen.add(term));
  return [...seen];
}
