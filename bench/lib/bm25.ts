/** Lowercased word tokens (Unicode letters and digits). */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Okapi BM25 parameters. */
export interface Bm25Parameters {
  k1: number;
  b: number;
}

/** Plain Okapi BM25 (Lucene idf, no stemming, no stop words) of every document against the query. */
export function bm25Scores(
  documents: readonly string[],
  query: string,
  { k1, b }: Bm25Parameters = { k1: 1.2, b: 0.75 },
): number[] {
  const tokenized = documents.map(words);
  const count = tokenized.length;
  const averageLength = tokenized.reduce((sum, doc) => sum + doc.length, 0) / Math.max(count, 1);
  const documentFrequency = new Map<string, number>();
  for (const doc of tokenized)
    for (const term of new Set(doc)) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
  const queryTerms = [...new Set(words(query))];
  return tokenized.map((doc) => {
    const frequency = new Map<string, number>();
    for (const term of doc) frequency.set(term, (frequency.get(term) ?? 0) + 1);
    let score = 0;
    for (const term of queryTerms) {
      const tf = frequency.get(term) ?? 0;
      if (tf === 0) continue;
      const df = documentFrequency.get(term) ?? 0;
      const idf = Math.log(1 + (count - df + 0.5) / (df + 0.5));
      score += (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * doc.length) / Math.max(averageLength, 1)));
    }
    return score;
  });
}
