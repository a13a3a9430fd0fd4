const TERM = /[\p{L}\p{N}_]+/gu;

/** Calls `visit` for every lower-cased word of `text` (Unicode letters, digits, `_`). */
export function forEachTerm(text: string, visit: (term: string) => void): void {
  for (const match of text.toLowerCase().matchAll(TERM)) visit(match[0]);
}

/** Distinct lower-cased words of `text`, in first-seen order. */
export function uniqueTerms(text: string): string[] {
  const seen = new Set<string>();
  forEachTerm(text, (term) => seen.add(term));
  return [...seen];
}
