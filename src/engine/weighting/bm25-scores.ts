import type { TermCache, TermCounts } from '../types.js';
import { countTerms, termCount, termKey, termTable } from './term-frequencies.js';
import { expandableTerms, queryTerms } from './query-terms.js';
import { type ConversationIndex, conversationIndex } from './conversation-index.js';
import { expandQuery } from './term-neighbours.js';

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
  /** Weight of each term (1 when absent). */
  weights?: Float64Array;
}

/** BM25+ style idf that stays positive on tiny corpora: ln(1 + (N − df + 0.5)/(df + 0.5)). */
export function bm25Idf(documentCount: number, documentFrequency: number): number {
  return Math.log(1 + (documentCount - documentFrequency + 0.5) / (documentFrequency + 0.5));
}

/**
 * The query's terms counted in every document, plus the close terms soft matching adds
 * (`expandQuery`, weighted below 1). With `source`, from the chat's inverted index
 * (`conversationIndex`: term tables cached by message id, postings grown as the chat grows),
 * so a warm turn only counts what is new and reads the postings of the query's terms.
 */
export function termMatrix(documents: readonly string[], query: string, source?: TermSource): TermMatrix {
  const words = queryTerms(query);
  const own = words.map(termKey);
  const expandable = expandableTerms(query);
  const widen = own.filter((_, at) => expandable.has(words[at]!));
  if (own.length === 0)
    return {
      width: 0,
      count: documents.length,
      frequencies: new Float64Array(0),
      lengths: new Float64Array(documents.length),
      tables: [],
    };
  if (source) {
    const index = conversationIndex(documents, source.keys, source.cache);
    return indexedMatrix(
      index,
      documents.length,
      withExpansion(own, widen, (key) => index.postings.has(key)),
    );
  }
  const tables = documents.map((document) => termTable(document, undefined, undefined));
  const expanded = withExpansion(own, widen, (key) => tables.some((table) => termCount(table, key) > 0));
  const width = expanded.keys.length;
  const frequencies = new Float64Array(documents.length * width);
  const lengths = new Float64Array(documents.length);
  tables.forEach((table, document) => {
    lengths[document] = table.terms;
    countTerms(table, expanded.keys, frequencies, document * width);
  });
  return { width, count: documents.length, frequencies, lengths, tables, weights: expanded.weights };
}

/** The query's own terms (weight 1) followed by its soft-matching expansion. */
function withExpansion(
  own: number[],
  widen: number[],
  present: (key: number) => boolean,
): { keys: number[]; weights: Float64Array } {
  const extra = expandQuery(widen, present, own);
  return { keys: [...own, ...extra.keys], weights: Float64Array.from([...own.map(() => 1), ...extra.weights]) };
}

/** The term matrix read from the chat's inverted index (postings of the query's terms only). */
function indexedMatrix(
  index: ConversationIndex,
  count: number,
  { keys, weights }: { keys: number[]; weights: Float64Array },
): TermMatrix {
  const width = keys.length;
  const frequencies = new Float64Array(count * width);
  const lengths = Float64Array.from(index.lengths.slice(0, count));
  for (let term = 0; term < width; term += 1) {
    const list = index.postings.get(keys[term]!);
    if (list === undefined) continue;
    for (let at = 0; at < list.length && list[at]! < count; at += 2)
      frequencies[list[at]! * width + term] = list[at + 1]!;
  }
  return { width, count, frequencies, lengths, tables: index.tables, weights };
}

/** BM25 of every document (row) of a term matrix, with idf and average length taken over its rows. */
export function bm25FromMatrix({ width, count, frequencies, lengths, weights }: TermMatrix): Float64Array {
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
  // A term's weight scales its idf: soft-matched terms count for less than the query's own.
  const idf = documentFrequency.map((frequency, index) => bm25Idf(count, frequency) * (weights ? weights[index]! : 1));
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
