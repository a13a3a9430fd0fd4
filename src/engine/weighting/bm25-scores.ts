import type { TermCache, TermCounts } from '../types.js';
import { countTerms, termKey, termTable } from './term-frequencies.js';
import { queryTerms } from './query-terms.js';
import { conversationIndex } from './conversation-index.js';

/** BM25 term-frequency saturation. */
export const BM25_K1 = 1.2;
/** BM25 length normalisation. */
export const BM25_B = 0.75;

/** Where cached term tables come from: one key (message id) per document, and the cache. */
export interface TermSource {
  keys: readonly string[];
  cache: TermCache;
}

/** Occurrences of each query term in each document: `frequencies[document · width + term]`, and each document's length in terms. */
export interface TermMatrix {
  width: number;
  count: number;
  frequencies: Float64Array;
  lengths: Float64Array;
  /** Each document's term table (empty when the query has no terms). */
  tables?: TermCounts[];
}

/** BM25+ style idf that stays positive on tiny corpora: ln(1 + (N − df + 0.5)/(df + 0.5)). */
export function bm25Idf(documentCount: number, documentFrequency: number): number {
  return Math.log(1 + (documentCount - documentFrequency + 0.5) / (documentFrequency + 0.5));
}

/**
 * The query's terms counted in every document. With `source`, from the chat's inverted index
 * (`conversationIndex`: term tables cached by message id, postings grown as the chat grows),
 * so a warm turn only counts what is new and reads the postings of the query's terms.
 */
export function termMatrix(documents: readonly string[], query: string, source?: TermSource): TermMatrix {
  const keys = queryTerms(query).map(termKey);
  const width = keys.length;
  const frequencies = new Float64Array(documents.length * width);
  const lengths = new Float64Array(documents.length);
  const tables: TermCounts[] = [];
  if (width === 0) return { width, count: documents.length, frequencies, lengths, tables };
  if (source) return indexedMatrix(documents, keys, source, frequencies, lengths);
  for (let document = 0; document < documents.length; document += 1) {
    const table = termTable(documents[document]!, undefined, undefined);
    tables.push(table);
    lengths[document] = table.terms;
    countTerms(table, keys, frequencies, document * width);
  }
  return { width, count: documents.length, frequencies, lengths, tables };
}

/** The term matrix read from the chat's inverted index (postings of the query's terms only). */
function indexedMatrix(
  documents: readonly string[],
  keys: readonly number[],
  source: TermSource,
  frequencies: Float64Array,
  lengths: Float64Array,
): TermMatrix {
  const index = conversationIndex(documents, source.keys, source.cache);
  const count = documents.length;
  const width = keys.length;
  for (let document = 0; document < count; document += 1) lengths[document] = index.lengths[document]!;
  for (let term = 0; term < width; term += 1) {
    const list = index.postings.get(keys[term]!);
    if (list === undefined) continue;
    for (let at = 0; at < list.length && list[at]! < count; at += 2)
      frequencies[list[at]! * width + term] = list[at + 1]!;
  }
  return { width, count, frequencies, lengths, tables: index.tables };
}

/** BM25 of every document (row) of a term matrix, with idf and average length taken over its rows. */
export function bm25FromMatrix({ width, count, frequencies, lengths }: TermMatrix): Float64Array {
  const scores = new Float64Array(count);
  if (width === 0 || count === 0) return scores;
  const documentFrequency = new Float64Array(width);
  let totalLength = 0;
  for (let document = 0; document < count; document += 1) {
    totalLength += lengths[document]!;
    for (let index = 0; index < width; index += 1)
      if (frequencies[document * width + index]! > 0) documentFrequency[index]! += 1;
  }
  const averageLength = totalLength / count || 1;
  const idf = documentFrequency.map((frequency) => bm25Idf(count, frequency));
  for (let document = 0; document < count; document += 1) {
    const norm = BM25_K1 * (1 - BM25_B + (BM25_B * lengths[document]!) / averageLength);
    let score = 0;
    for (let index = 0; index < width; index += 1) {
      const tf = frequencies[document * width + index]!;
      if (tf > 0) score += (idf[index]! * tf * (BM25_K1 + 1)) / (tf + norm);
    }
    scores[document] = score;
  }
  return scores;
}

/**
 * Raw BM25 score of every document against the query, over indexed terms (stop words out,
 * English stemmed: see `analyzeTerm`); a document's length is its number of indexed terms.
 */
export function bm25Scores(documents: readonly string[], query: string, source?: TermSource): Float64Array {
  return bm25FromMatrix(termMatrix(documents, query, source));
}
