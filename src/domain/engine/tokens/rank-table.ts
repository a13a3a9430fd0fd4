import type { RankTable } from './bpe-counter.js';

/** A js-tiktoken rank file: the split pattern and the ranks, as lines `! <first rank> <base64 token> …`. */
export interface RankFile {
  pat_str: string;
  bpe_ranks: string;
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const SIXBITS = new Int8Array(128).fill(-1);
for (let index = 0; index < BASE64.length; index += 1) SIXBITS[BASE64.charCodeAt(index)] = index;

/** The bytes a base64 token decodes to, joined by commas (the rank table's key), read straight from the text. */
function keyOf(token: string): string {
  let key = '';
  let buffer = 0;
  let bits = 0;
  for (let index = 0; index < token.length; index += 1) {
    const code = token.charCodeAt(index);
    const value = code < 128 ? SIXBITS[code]! : -1;
    if (value < 0) break; // '=' padding ends it
    buffer = ((buffer << 6) | value) & 0xfff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      const byte = (buffer >> bits) & 0xff;
      key = key === '' ? String(byte) : `${key},${byte}`;
    }
  }
  return key;
}

/**
 * The rank table the counter needs, read from the rank file directly: the same byte sequence → rank map js-tiktoken's
 * `Tiktoken` builds, without its intermediate object of 200,000 keys and its rank → bytes map the counter never reads
 * (building the o200k table that way took about a second of CPU and as much in garbage collection at start-up).
 */
export function rankTable(file: RankFile): RankTable {
  const rankMap = new Map<string, number>();
  for (const line of file.bpe_ranks.split('\n')) {
    if (line === '') continue;
    const fields = line.split(' ');
    const first = Number.parseInt(fields[1] ?? '', 10);
    for (let index = 2; index < fields.length; index += 1) rankMap.set(keyOf(fields[index]!), first + index - 2);
  }
  return { rankMap, patStr: file.pat_str };
}
