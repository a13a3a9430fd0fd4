/** A js-tiktoken rank file: the split pattern and the ranks, as lines `! <first rank> <base64 token> …`. */
export interface RankFile {
  pat_str: string;
  bpe_ranks: string;
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const SIXBITS = new Int8Array(128).fill(-1);
for (let index = 0; index < BASE64.length; index += 1) SIXBITS[BASE64.charCodeAt(index)] = index;

const SPACE = 32;
const NEWLINE = 10;

/** FNV-1a over `bytes[start, end)`. */
function hashOf(bytes: Uint8Array, start: number, end: number): number {
  let hash = 0x811c9dc5;
  for (let index = start; index < end; index += 1) hash = Math.imul(hash ^ bytes[index]!, 0x01000193);
  return hash >>> 0;
}

/**
 * The slot of `key[start, end)` in `slots` (token index + 1 per slot, 0 empty; token i's bytes are
 * `bytes[offsets[i], offsets[i + 1])`): the slot holding it, or the empty slot where it would go.
 */
function slotOf(
  slots: Int32Array,
  offsets: Uint32Array,
  bytes: Uint8Array,
  key: Uint8Array,
  start: number,
  end: number,
): number {
  const mask = slots.length - 1;
  const length = end - start;
  for (let slot = hashOf(key, start, end) & mask; ; slot = (slot + 1) & mask) {
    const entry = slots[slot]!;
    if (entry === 0) return slot;
    const from = offsets[entry - 1]!;
    if (offsets[entry]! - from !== length) continue;
    let index = 0;
    while (index < length && bytes[from + index] === key[start + index]) index += 1;
    if (index === length) return slot;
  }
}

/**
 * Byte sequence → rank, the table the counter merges with: every token's bytes in one buffer, and an open-addressing
 * hash table of their indexes (linear probing, at most half full). A look-up hashes and compares the bytes where they
 * lie, so it builds no key; the whole o200k table is about 5 MB, built in tens of milliseconds, where a
 * `Map<string, number>` of comma-joined bytes (what js-tiktoken keeps) holds about 80 MB and costs most of a second of
 * CPU and garbage collection in every process and worker thread that counts tokens.
 */
export class RankTable {
  /** Distinct byte sequences in the table. */
  readonly size: number;

  constructor(
    /** The encoding's split pattern (a regular expression's source). */
    readonly patStr: string,
    private readonly bytes: Uint8Array,
    /** Token i's bytes are `bytes[offsets[i], offsets[i + 1])`. */
    private readonly offsets: Uint32Array,
    private readonly ranks: Float64Array,
    /** Token index + 1 per slot; 0 marks an empty slot. */
    private readonly slots: Int32Array,
  ) {
    this.size = ranks.length;
  }

  /** The rank of `bytes[start, end)`, or -1 when it is not a token. */
  rankOf(bytes: Uint8Array, start: number, end: number): number {
    const entry = this.slots[slotOf(this.slots, this.offsets, this.bytes, bytes, start, end)]!;
    return entry === 0 ? -1 : this.ranks[entry - 1]!;
  }

  /** Every byte sequence (its bytes joined by commas) with its rank, in the rank file's order. */
  *entries(): IterableIterator<[string, number]> {
    for (let token = 0; token < this.size; token += 1) {
      yield [this.bytes.subarray(this.offsets[token]!, this.offsets[token + 1]!).join(','), this.ranks[token]!];
    }
  }
}

/** Decode the base64 token `text[start, end)` into `out` at `at` (stopping at `=` padding); returns the new end. */
function decodeToken(text: string, start: number, end: number, out: Uint8Array, at: number): number {
  let buffer = 0;
  let bits = 0;
  let written = at;
  for (let index = start; index < end; index += 1) {
    const code = text.charCodeAt(index);
    const value = code < 128 ? SIXBITS[code]! : -1;
    if (value < 0) break;
    buffer = ((buffer << 6) | value) & 0xfff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[written] = (buffer >> bits) & 0xff;
      written += 1;
    }
  }
  return written;
}

/**
 * The rank table of a rank file, read straight from its text: the same byte sequence → rank pairs js-tiktoken's
 * `Tiktoken` builds (fields split on single spaces, a repeated sequence keeping its last rank).
 */
export function rankTable(file: RankFile): RankTable {
  const text = file.bpe_ranks;
  let fields = 1;
  for (let index = 0; index < text.length; index += 1) if (text.charCodeAt(index) === SPACE) fields += 1;
  const bytes = new Uint8Array(Math.ceil((text.length * 3) / 4));
  const offsets = new Uint32Array(fields + 1);
  const ranks = new Float64Array(fields);
  let capacity = 2;
  while (capacity < fields * 2) capacity *= 2;
  const slots = new Int32Array(capacity);
  let tokens = 0;
  let written = 0;

  /** Add the bytes just written at `offsets[tokens]`, or give an earlier copy of them the new rank. */
  const insert = (end: number, rank: number): void => {
    const slot = slotOf(slots, offsets, bytes, bytes, offsets[tokens]!, end);
    const entry = slots[slot]!;
    if (entry !== 0) {
      ranks[entry - 1] = rank; // Map.set semantics: the later rank wins, the sequence keeps its place
      return;
    }
    slots[slot] = tokens + 1;
    ranks[tokens] = rank;
    tokens += 1;
    offsets[tokens] = end;
    written = end;
  };

  for (let lineStart = 0; lineStart < text.length; ) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = text.length;
    const prefixEnd = text.indexOf(' ', lineStart);
    if (prefixEnd >= 0 && prefixEnd < lineEnd) {
      let fieldEnd = text.indexOf(' ', prefixEnd + 1);
      if (fieldEnd < 0 || fieldEnd > lineEnd) fieldEnd = lineEnd;
      let rank = Number.parseInt(text.slice(prefixEnd + 1, fieldEnd), 10);
      for (let at = fieldEnd; at < lineEnd; ) {
        const tokenStart = at + 1;
        let tokenEnd = tokenStart;
        while (tokenEnd < lineEnd && text.charCodeAt(tokenEnd) !== SPACE) tokenEnd += 1;
        offsets[tokens] = written;
        insert(decodeToken(text, tokenStart, tokenEnd, bytes, written), rank);
        rank += 1;
        at = tokenEnd;
      }
    }
    lineStart = text.charCodeAt(lineEnd) === NEWLINE ? lineEnd + 1 : lineEnd;
  }
  return new RankTable(
    file.pat_str,
    bytes.slice(0, written),
    offsets.slice(0, tokens + 1),
    ranks.slice(0, tokens),
    slots,
  );
}
