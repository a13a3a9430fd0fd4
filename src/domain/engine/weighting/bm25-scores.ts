import type { TermCache, TermCounts } from '../types.js';
import { termCount, termKey, termTable } from './term-frequencies.js';
import { adjacentCompounds, expandableTerms, queryTerms } from './query-terms.js';
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

/**
 * Where each query term occurs: per term its postings, flat pairs `[document, occurrences, …]`; the first columns
 * are the query's own terms (`terms`, in that order), then the compounds and close terms soft matching adds;
 * documents ascending (entries for documents ≥ `count` are
 * ignored: the chat's index may be ahead of this request), and each document's length in terms. Sparse, so
 * scoring costs the occurrences of the question's terms, not documents × terms.
 */
export interface TermMatrix {
  /** The query's own terms (`queryTerms`): the first `terms.length` columns, in this order. */
  terms: readonly string[];
  width: number;
  count: number;
  postings: ReadonlyArray<ArrayLike<number>>;
  lengths: ArrayLike<number>;
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
  const compounds = adjacentCompounds(query).map(termKey);
  if (own.length === 0)
    return {
      terms: words,
      width: 0,
      count: documents.length,
      postings: [],
      lengths: new Float64Array(documents.length),
      tables: [],
    };
  if (source) {
    const index = conversationIndex(documents, source.keys, source.cache);
    const count = documents.length;
    // Used by one of this request's documents: the index may hold documents past `count` (a longer
    // version of the chat planned earlier), and a term only they use must not take an expansion slot.
    const present = (key: number): boolean => {
      const list = index.postings.get(key);
      return list !== undefined && list.length > 0 && list[0]! < count;
    };
    return indexedMatrix(index, words, count, withExpansion(own, widen, compounds, present));
  }
  const tables = documents.map((document) => termTable(document, undefined, undefined));
  const expanded = withExpansion(own, widen, compounds, (key) => tables.some((table) => termCount(table, key) > 0));
  const postings = expanded.keys.map((key) => {
    const list: number[] = [];
    tables.forEach((table, document) => {
      const occurrences = termCount(table, key);
      if (occurrences > 0) list.push(document, occurrences);
    });
    return list;
  });
  const lengths = Float64Array.from(tables, (table) => table.terms);
  return {
    terms: words,
    width: postings.length,
    count: documents.length,
    postings,
    lengths,
    tables,
    weights: expanded.weights,
  };
}

/** A compound of two adjacent query words ("ice cream" → "icecream") that the chat uses counts this much. */
export const COMPOUND_WEIGHT = 0.8;

/** The query's own terms (weight 1), the compounds of adjacent words the chat uses, then soft matching's close terms. */
function withExpansion(
  own: number[],
  widen: number[],
  compounds: number[],
  present: (key: number) => boolean,
): { keys: number[]; weights: Float64Array } {
  const joined = [...new Set(compounds)].filter((key) => !own.includes(key) && present(key));
  const extra = expandQuery(widen, present, [...own, ...joined]);
  return {
    keys: [...own, ...joined, ...extra.keys],
    weights: Float64Array.from([...own.map(() => 1), ...joined.map(() => COMPOUND_WEIGHT), ...extra.weights]),
  };
}

const NO_POSTINGS: readonly number[] = [];

/** The term matrix read from the chat's inverted index: the postings of the query's terms, shared, not copied. */
function indexedMatrix(
  index: ConversationIndex,
  terms: readonly string[],
  count: number,
  { keys, weights }: { keys: number[]; weights: Float64Array },
): TermMatrix {
  const postings = keys.map((key) => index.postings.get(key) ?? NO_POSTINGS);
  return { terms, width: keys.length, count, postings, lengths: index.lengths, tables: index.tables, weights };
}

/** BM25's length normalisation of every document: k1 · (1 − b + b · length / average length). */
export function lengthNorms(lengths: ArrayLike<number>, count: number): Float64Array {
  let totalLength = 0;
  for (let document = 0; document < count; document += 1) totalLength += lengths[document]!;
  const averageLength = totalLength / count || 1;
  const norms = new Float64Array(count);
  for (let document = 0; document < count; document += 1)
    norms[document] = BM25_K1 * (1 - BM25_B + (BM25_B * lengths[document]!) / averageLength);
  return norms;
}

/** Documents (below `count`) a posting list names: its pairs up to the first document ≥ count. */
export function postingsEnd(list: ArrayLike<number>, count: number): number {
  let end = list.length;
  while (end > 0 && list[end - 2]! >= count) end -= 2;
  return end;
}

/**
 * BM25 of every document of a term matrix, with idf and average length taken over its
 * `count` documents; reads only the postings (terms in order, so each document's sum is
 * added up in the same order as a dense document × term loop would).
 */
export function bm25FromMatrix({ width, count, postings, lengths, weights }: TermMatrix): Float64Array {
  const scores = new Float64Array(count);
  if (width === 0 || count === 0) return scores;
  const norms = lengthNorms(lengths, count);
  for (let term = 0; term < width; term += 1) {
    const list = postings[term]!;
    const end = postingsEnd(list, count);
    // A term's weight scales its idf: soft-matched terms count for less than the query's own.
    const idf = bm25Idf(count, end / 2) * (weights ? weights[term]! : 1);
    for (let at = 0; at < end; at += 2) {
      const tf = list[at + 1]!;
      if (tf > 0) scores[list[at]!]! += (idf * tf * (BM25_K1 + 1)) / (tf + norms[list[at]!]!);
    }
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
