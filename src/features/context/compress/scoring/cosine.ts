/** Cosine similarity of two vectors (0 when either is zero or lengths differ). */
export function cosine(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length || a.length === 0) return 0;
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let index = 0; index < a.length; index++) {
    dot += a[index]! * b[index]!;
    normA += a[index]! * a[index]!;
    normB += b[index]! * b[index]!;
  }
  return normA > 0 && normB > 0 ? dot / Math.sqrt(normA * normB) : 0;
}

/** Similarities mapped to [0,1] by (cos + 1) / 2, divided by the best, with a floor. */
export function normalizeSimilarities(similarities: readonly number[], floor = 0.05): number[] {
  const shifted = similarities.map((value) => (value + 1) / 2);
  const best = Math.max(0, ...shifted);
  return shifted.map((value) => (best > 0 ? Math.max(floor, value / best) : 1));
}
