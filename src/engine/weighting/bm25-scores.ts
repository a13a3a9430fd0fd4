import type { TermCache } from '../types.js';
import { termCounter } from './term-counter.js';
import { cachedFrequencies } from './term-frequencies.js';
import { queryTerms } from './query-terms.js';

/** BM25 term-frequency saturation (rank_bm25's default). */
export const BM25_K1 = 1.5;
/** BM25 length normalisation (rank_bm25's default). */
export const BM25_B = 0.75;

/** Where cached word counts come from: one key (message id) per document, and the cache. */
export interface TermSource {
  keys: readonly string[];
  cache: TermCache;
}

/** BM25+ style idf that stays positive on tiny corpora (W2): ln(1 + (N − df + 0.5)/(df + 0.5)). */
export function bm25Idf(documentCount: number, documentFrequency: number): number {
  return Math.log(1 + (documentCount - documentFrequency + 0.5) / (documentFrequency + 0.5));
}

/** Fills `frequencies` by scanning every document for the query's words only (no cache). */
function scannedFrequencies(documents: readonly string[], terms: readonly string[], frequencies: Float64Array): void {
  const count = termCounter(terms);
  documents.forEach((text, document) => count(text, frequencies, document * terms.length));
}

/**
 * Raw BM25 score of every document against the query. Only the query's words matter
 * (whole-word, case-insensitive), and document length is measured in characters (BM25 only
 * uses the ratio to the average). Without `source` each document costs one native regex scan;
 * with it, each document's word counts are read from the cache (computed once per message).
 */
export function bm25Scores(documents: readonly string[], query: string, source?: TermSource): Float64Array {
  const terms = queryTerms(query);
  const scores = new Float64Array(documents.length);
  if (terms.length === 0 || documents.length === 0) return scores;
  const frequencies = new Float64Array(documents.length * terms.length);
  if (source) cachedFrequencies(documents, terms, source.keys, source.cache, frequencies);
  else scannedFrequencies(documents, terms, frequencies);
  const documentFrequency = new Float64Array(terms.length);
  const width = terms.length;
  let totalLength = 0;
  for (let document = 0; document < documents.length; document += 1) {
    totalLength += documents[document]!.length;
    for (let index = 0; index < width; index += 1) if (frequencies[document * width + index]! > 0) documentFrequency[index]! += 1;
  }
  const averageLength = totalLength / documents.length || 1;
  const idf = new Float64Array(width);
  for (let index = 0; index < width; index += 1) idf[index] = bm25Idf(documents.length, documentFrequency[index]!);
  for (let document = 0; document < documents.length; document += 1) {
    const norm = BM25_K1 * (1 - BM25_B + (BM25_B * documents[document]!.length) / averageLength);
    let score = 0;
    for (let index = 0; index < width; index += 1) {
      const tf = frequencies[document * width + index]!;
      if (tf > 0) score += (idf[index]! * tf * (BM25_K1 + 1)) / (tf + norm);
    }
    scores[document] = score;
  }
  return scores;
}
