import { BM25_K1, bm25Idf, lengthNorms, postingsEnd, type TermMatrix } from './bm25-scores.js';

/** Messages per passage. */
export const PASSAGE_SIZE = 4;

/**
 * Passage relevance: BM25 of every run of `size` consecutive messages taken as one document
 * (term counts and lengths added up; the runs that start in the last `size − 1` messages are
 * shorter), and for each message the best passage that contains it. A question's words are
 * often spread over a short exchange ("Melanie: we went camping" — "with the kids?" — "yes,
 * all of us") that no single message matches as well. Sparse like `bm25FromMatrix`: a term's
 * occurrences are spread over the passages that contain them, so the cost follows the
 * question's postings, not passages × terms.
 */
export function passageScores(matrix: TermMatrix, size = PASSAGE_SIZE): Float64Array {
  const { width, count, postings, weights } = matrix;
  const best = new Float64Array(count);
  if (width === 0 || count === 0) return best;
  // Passage lengths, sliding back from the end: passage[start] = document[start] + passage[start + 1] − document[start + size].
  const lengths = new Float64Array(count);
  for (let start = count - 1; start >= 0; start -= 1) {
    lengths[start] =
      matrix.lengths[start]! +
      (start + 1 < count ? lengths[start + 1]! : 0) -
      (start + size < count ? matrix.lengths[start + size]! : 0);
  }
  const norms = lengthNorms(lengths, count);
  const passages = new Float64Array(count);
  const occurrences = new Float64Array(count);
  const touched: number[] = [];
  for (let term = 0; term < width; term += 1) {
    const list = postings[term]!;
    const end = postingsEnd(list, count);
    // Occurrences per passage: a document's count goes to every passage that contains it.
    for (let at = 0; at < end; at += 2) {
      const document = list[at]!;
      for (let start = Math.max(0, document - size + 1); start <= document; start += 1) {
        if (occurrences[start] === 0) touched.push(start);
        occurrences[start]! += list[at + 1]!;
      }
    }
    const idf = bm25Idf(count, touched.length) * (weights ? weights[term]! : 1);
    for (const start of touched) {
      const tf = occurrences[start]!;
      passages[start]! += (idf * tf * (BM25_K1 + 1)) / (tf + norms[start]!);
      occurrences[start] = 0;
    }
    touched.length = 0;
  }
  // Each message's best passage: the maximum over the passages that start within `size` before it.
  for (let document = 0; document < count; document += 1) {
    let value = 0;
    for (let start = Math.max(0, document - size + 1); start <= document; start += 1)
      if (passages[start]! > value) value = passages[start]!;
    best[document] = value;
  }
  return best;
}
