import { bm25FromMatrix, type TermMatrix } from './bm25-scores.js';

/** Messages per passage. */
export const PASSAGE_SIZE = 4;

/**
 * Passage relevance: BM25 of every run of `size` consecutive messages taken as one document
 * (term counts and lengths added up), and for each message the best passage that contains
 * it. A question's words are often spread over a short exchange ("Melanie: we went camping"
 * — "with the kids?" — "yes, all of us") that no single message matches as well.
 */
export function passageScores(matrix: TermMatrix, size = PASSAGE_SIZE): Float64Array {
  const { width, count } = matrix;
  const best = new Float64Array(count);
  if (width === 0 || count === 0) return best;
  const frequencies = new Float64Array(count * width);
  const lengths = new Float64Array(count);
  // Sliding sums, walking back from the end: passage[start] = document[start] + passage[start + 1] − document[start + size].
  for (let start = count - 1; start >= 0; start -= 1) {
    const next = start + 1 < count;
    const leaving = start + size < count ? start + size : -1;
    lengths[start] =
      matrix.lengths[start]! + (next ? lengths[start + 1]! : 0) - (leaving >= 0 ? matrix.lengths[leaving]! : 0);
    for (let index = 0; index < width; index += 1) {
      frequencies[start * width + index] =
        matrix.frequencies[start * width + index]! +
        (next ? frequencies[(start + 1) * width + index]! : 0) -
        (leaving >= 0 ? matrix.frequencies[leaving * width + index]! : 0);
    }
  }
  const passages = bm25FromMatrix({ width, count, frequencies, lengths, weights: matrix.weights });
  // Each message's best passage: the maximum over the passages that start within `size` before it.
  for (let document = 0; document < count; document += 1) {
    let value = 0;
    for (let start = Math.max(0, document - size + 1); start <= document; start += 1)
      if (passages[start]! > value) value = passages[start]!;
    best[document] = value;
  }
  return best;
}
