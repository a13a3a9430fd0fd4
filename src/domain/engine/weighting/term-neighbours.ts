import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { termKey } from './term-frequencies.js';

/** A neighbour counts when its similarity to the query term is at least this. */
export const NEIGHBOUR_MIN_SIMILARITY = 0.55;
/** At most this many neighbours per query term, the closest of those the chat uses. */
export const NEIGHBOURS_PER_TERM = 3;
/** A neighbour's term weight is this × its similarity (a query term's own weight is 1). */
export const NEIGHBOUR_WEIGHT = 0.4;

/** The shipped table: terms, and for each a run of `pairs` (neighbour · 256 + similarity · 255). */
interface NeighbourFile {
  terms: string[];
  offsets: number[];
  pairs: number[];
}

interface NeighbourTable {
  /** Term key → row. */
  rows: Map<number, number>;
  /** Row → term key. */
  keys: Float64Array;
  offsets: Uint32Array;
  pairs: Uint32Array;
}

const FILE = new URL('./data/term-neighbours.json.gz', import.meta.url);
let table: NeighbourTable | null | undefined;

/** The table, read on first use; null (no expansion) when the file is missing or unreadable. */
function neighbourTable(): NeighbourTable | null {
  if (table !== undefined) return table;
  try {
    const file = JSON.parse(gunzipSync(readFileSync(FILE)).toString('utf8')) as NeighbourFile;
    const keys = Float64Array.from(file.terms, termKey);
    const rows = new Map<number, number>();
    keys.forEach((key, row) => rows.set(key, row));
    table = { rows, keys, offsets: Uint32Array.from(file.offsets), pairs: Uint32Array.from(file.pairs) };
  } catch {
    table = null;
  }
  return table;
}

/** Extra query terms found through word similarity, with their weights (parallel arrays). */
export interface QueryExpansion {
  keys: number[];
  weights: number[];
}

/**
 * Soft matching: for each query term, the closest terms in the shipped similarity table
 * (GloVe word vectors, see `bench/tools/build-term-neighbours.ts`) that the chat uses (`present`),
 * at most NEIGHBOURS_PER_TERM with similarity ≥ NEIGHBOUR_MIN_SIMILARITY, weighted
 * NEIGHBOUR_WEIGHT × similarity (the best when two query terms share a neighbour). Query terms
 * themselves (and `exclude`) are never added. "martial arts" then finds "taekwondo", "bought" finds "purchased".
 */
export function expandQuery(
  queryKeys: readonly number[],
  present: (key: number) => boolean,
  exclude: readonly number[] = queryKeys,
): QueryExpansion {
  const expansion: QueryExpansion = { keys: [], weights: [] };
  const neighbours = neighbourTable();
  if (neighbours === null || queryKeys.length === 0) return expansion;
  const own = new Set([...queryKeys, ...exclude]);
  const weightOf = new Map<number, number>();
  const floor = Math.round(NEIGHBOUR_MIN_SIMILARITY * 255);
  for (const queryKey of queryKeys) {
    const row = neighbours.rows.get(queryKey);
    if (row === undefined) continue;
    let taken = 0;
    for (let at = neighbours.offsets[row]!; at < neighbours.offsets[row + 1]! && taken < NEIGHBOURS_PER_TERM; at += 1) {
      const pair = neighbours.pairs[at]!;
      const similarity = pair & 255;
      if (similarity < floor) break; // pairs are sorted by similarity, best first
      const key = neighbours.keys[pair >>> 8]!;
      if (own.has(key) || !present(key)) continue;
      taken += 1;
      const weight = (NEIGHBOUR_WEIGHT * similarity) / 255;
      if (weight > (weightOf.get(key) ?? 0)) weightOf.set(key, weight);
    }
  }
  for (const [key, weight] of weightOf) {
    expansion.keys.push(key);
    expansion.weights.push(weight);
  }
  return expansion;
}
