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
  for (let start = 0; start < count; start += 1) {
    const end = Math.min(count, start + size);
    for (let document = start; document < end; document += 1) {
      lengths[start]! += matrix.lengths[document]!;
      for (let index = 0; index < width; index += 1) frequencies[start * width + index]! += matrix.frequencies[document * width + index]!;
    }
  }
  const passages = bm25FromMatrix({ width, count, frequencies, lengths });
  for (let start = 0; start < count; start += 1) {
    const end = Math.min(count, start + size);
    for (let document = start; document < end; document += 1) if (best[document]! < passages[start]!) best[document] = passages[start]!;
  }
  return best;
}
