import type { TermCache, TermCounts } from '../types.js';

const WORD_CHAR = /^[\p{L}\p{N}_]$/u;
const SEED_A = 0x811c9dc5;
const SEED_B = 0x9747b28c;
/** Reused buffer of the word keys of the text being counted (synchronous, so never shared). */
let scratch = new Float64Array(1024);

/**
 * Key of a lower-case term: two 32-bit multiplicative hashes fused into 53 bits (exact in a
 * double; a false match is ~2⁻⁵³ per pair, negligible for scoring). The loop in
 * `termFrequencies` computes the same key inline (cross-module calls are not inlined).
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
 * Open-addressing table of the words found (keys by `termKey`, linear probing, load ≤ ½;
 * a slot with count 0 is empty), sized by the distinct words so a long message with few
 * distinct words stays small. Sorting would cost more than the scan itself.
 */
function tally(length: number, found: Float64Array, words: number): TermCounts {
  let keys = new Float64Array(tableSize(words));
  let counts = new Uint32Array(keys.length);
  let distinct = 0;
  for (let index = 0; index < words; index += 1) if (insert(keys, counts, found[index]!, 1)) distinct += 1;
  const size = tableSize(distinct);
  if (size < keys.length) {
    const fullKeys = keys;
    const fullCounts = counts;
    keys = new Float64Array(size);
    counts = new Uint32Array(size);
    for (let slot = 0; slot < fullKeys.length; slot += 1) if (fullCounts[slot] !== 0) insert(keys, counts, fullKeys[slot]!, fullCounts[slot]!);
  }
  return { length, keys, counts };
}

/**
 * Word counts of `text` as a compact table of hashed words: the same words `queryTerms`
 * finds (Unicode letters, digits, `_`, lower-cased), so a cached table answers any later
 * query. One pass; ASCII words are hashed in place, without a string per word.
 */
export function termFrequencies(text: string): TermCounts {
  const length = text.length;
  // A word needs at least one character and one separator, so length/2 + 1 slots suffice.
  if (scratch.length < (length >> 1) + 1) scratch = new Float64Array((length >> 1) + 1);
  const found = scratch;
  let words = 0;
  let start = -1;
  let ascii = true;
  let a = SEED_A;
  let b = SEED_B;
  let index = 0;
  while (index <= length) {
    let code = index < length ? text.charCodeAt(index) : 32;
    let width = 1;
    let word: boolean;
    if (code < 128) {
      if (code >= 65 && code <= 90) code |= 32;
      word = (code >= 97 && code <= 122) || (code >= 48 && code <= 57) || code === 95;
      if (word) {
        a = Math.imul(a ^ code, 0x01000193);
        b = Math.imul((b ^ code) + ((b << 13) | (b >>> 19)), 0x5bd1e995);
      }
    } else {
      const point = text.codePointAt(index)!;
      width = point > 0xffff ? 2 : 1;
      word = WORD_CHAR.test(String.fromCodePoint(point));
      if (word) ascii = false;
    }
    if (word) {
      if (start < 0) start = index;
    } else if (start >= 0) {
      found[words++] = ascii ? (a >>> 0) * 2097152 + ((b >>> 0) & 0x1fffff) : termKey(text.slice(start, index).toLowerCase());
      start = -1;
      ascii = true;
      a = SEED_A;
      b = SEED_B;
    }
    index += width;
  }
  return tally(length, found, words);
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

/**
 * Fills `frequencies[document · terms + term]` from the cached table of each document (by
 * `keys`), counting and caching the misses. Lives here so the per-term lookups stay local calls.
 */
export function cachedFrequencies(documents: readonly string[], terms: readonly string[], keys: readonly string[], cache: TermCache, frequencies: Float64Array): void {
  const termKeys = terms.map(termKey);
  const width = terms.length;
  for (let document = 0; document < documents.length; document += 1) {
    const text = documents[document]!;
    let table = cache.get(keys[document]!);
    if (table === undefined || table.length !== text.length) {
      table = termFrequencies(text);
      cache.set(keys[document]!, table);
    }
    for (let index = 0; index < width; index += 1) frequencies[document * width + index] = termCount(table, termKeys[index]!);
  }
}
