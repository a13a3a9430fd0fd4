import type { TermCache, TermCounts } from '../types.js';
import { forEachTerm } from './tokenize-terms.js';

const SEED_A = 0x811c9dc5;
const SEED_B = 0x9747b28c;
/** Reused buffer of the term keys of the text being counted (synchronous, so never shared). */
let scratch = new Float64Array(1024);

/**
 * Key of an indexed term: two 32-bit multiplicative hashes fused into 53 bits (exact in a
 * double; a false match is ~2⁻⁵³ per pair, negligible for scoring).
 */
export function termKey(term: string): number {
  let a = SEED_A;
  let b = SEED_B;
  for (let index = 0; index < term.length; index += 1) {
    const code = term.charCodeAt(index);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul((b ^ code) + ((b << 13) | (b >>> 19)), 0x5bd1e995);
  }
  return (a >>> 0) * 2097152 + ((b >>> 0) & 0x1fffff);
}

/** Power-of-two table size for `entries` keys at load ≤ ½ (at least 8). */
function tableSize(entries: number): number {
  let size = 8;
  while (size < entries * 2) size <<= 1;
  return size;
}

/** Adds `count` occurrences of `key` to an open-addressing table; returns true when the key is new. */
function insert(keys: Float64Array, counts: Uint32Array, key: number, count: number): boolean {
  const mask = keys.length - 1;
  let slot = key & mask;
  while (counts[slot] !== 0 && keys[slot] !== key) slot = (slot + 1) & mask;
  const fresh = counts[slot] === 0;
  keys[slot] = key;
  counts[slot]! += count;
  return fresh;
}

/**
 * Open-addressing table of the terms found (keys by `termKey`, linear probing, load ≤ ½;
 * a slot with count 0 is empty), sized by the distinct terms so a long message with few
 * distinct words stays small.
 */
function tally(length: number, found: Float64Array, terms: number): TermCounts {
  let keys = new Float64Array(tableSize(terms));
  let counts = new Uint32Array(keys.length);
  let distinct = 0;
  for (let index = 0; index < terms; index += 1) if (insert(keys, counts, found[index]!, 1)) distinct += 1;
  const size = tableSize(distinct);
  if (size < keys.length) {
    const fullKeys = keys;
    const fullCounts = counts;
    keys = new Float64Array(size);
    counts = new Uint32Array(size);
    for (let slot = 0; slot < fullKeys.length; slot += 1)
      if (fullCounts[slot] !== 0) insert(keys, counts, fullKeys[slot]!, fullCounts[slot]!);
  }
  // `time` is set on first need; present from the start so every table keeps one shape.
  return { length, terms, keys, counts, time: undefined };
}

/**
 * Term counts of `text` as a compact table of hashed indexed terms: the same terms
 * `queryTerms` finds (stop words out, English stemmed), so a cached table answers any later query.
 */
export function termFrequencies(text: string): TermCounts {
  // A word needs at least one character and one separator, so length/2 + 1 slots suffice.
  if (scratch.length < (text.length >> 1) + 1) scratch = new Float64Array((text.length >> 1) + 1);
  const found = scratch;
  let terms = 0;
  forEachTerm(text, (term) => {
    found[terms++] = termKey(term);
  });
  return tally(text.length, found, terms);
}

/** Occurrences of a term (by `termKey`) in a table. */
export function termCount(table: TermCounts, key: number): number {
  const mask = table.keys.length - 1;
  let slot = key & mask;
  while (table.counts[slot] !== 0) {
    if (table.keys[slot] === key) return table.counts[slot]!;
    slot = (slot + 1) & mask;
  }
  return 0;
}

/** The table of one document: from the cache when it is there and current, else counted (and cached). */
export function termTable(text: string, key: string | undefined, cache: TermCache | undefined): TermCounts {
  let table = key === undefined ? undefined : cache?.get(key);
  if (table === undefined || table.length !== text.length) {
    table = termFrequencies(text);
    if (key !== undefined) cache?.set(key, table);
  }
  return table;
}
