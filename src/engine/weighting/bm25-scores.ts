import { forEachTerm, uniqueTerms } from './tokenize-terms.js';

/** BM25 parameters (rank_bm25's defaults). */
export const BM25_K1 = 1.5;
export const BM25_B = 0.75;

/** BM25+ style idf that stays positive on tiny corpora (W2): ln(1 + (N − df + 0.5)/(df + 0.5)). */
export function bm25Idf(documentCount: number, documentFrequency: number): number {
  return Math.log(1 + (documentCount - documentFrequency + 0.5) / (documentFrequency + 0.5));
}

/**
 * Raw BM25 score of every document against the query. Each document is tokenized once and
 * only query terms are counted, so the cost is linear in the total text.
 */
export function bm25Scores(documents: readonly string[], query: string): Float64Array {
  const terms = uniqueTerms(query);
  const scores = new Float64Array(documents.length);
  if (terms.length === 0 || documents.length === 0) return scores;
  const termIndex = new Map(terms.map((term, index) => [term, index] as const));
  const frequencies = documents.map(() => new Float64Array(terms.length));
  const lengths = new Float64Array(documents.length);
  const documentFrequency = new Float64Array(terms.length);
  let totalLength = 0;
  documents.forEach((text, document) => {
    const counts = frequencies[document]!;
    let length = 0;
    forEachTerm(text, (term) => {
      length += 1;
      const index = termIndex.get(term);
      if (index !== undefined) counts[index]! += 1;
    });
    lengths[document] = length;
    totalLength += length;
    for (let index = 0; index < terms.length; index += 1) if (counts[index]! > 0) documentFrequency[index]! += 1;
  });
  const averageLength = totalLength / documents.length || 1;
  const idf = Array.from(documentFrequency, (df) => bm25Idf(documents.length, df));
  for (let document = 0; document < documents.length; document += 1) {
    const counts = frequencies[document]!;
    const norm = BM25_K1 * (1 - BM25_B + (BM25_B * lengths[document]!) / averageLength);
    let score = 0;
    for (let index = 0; index < terms.length; index += 1) {
      const tf = counts[index]!;
      if (tf > 0) score += (idf[index]! * tf * (BM25_K1 + 1)) / (tf + norm);
    }
    scores[document] = score;
  }
  return scores;
}
