import type { RankTable } from './rank-table.js';

/** Bounded memo of piece → token count (chat text repeats its words a lot). */
const MAX_MEMO = 200_000;

/**
 * Longest byte run merged as one piece. A piece is a word in ordinary text, but a run of letters without spaces or
 * punctuation (CJK text, a long identifier) is one piece however long it is, and merging costs time in its square:
 * a longer piece is merged in runs of this many bytes (at most one token more per cut than merging it whole).
 */
export const MAX_PIECE_BYTES = 256;

/**
 * Tokens of one byte sequence by byte-pair merging (the same merge rule as js-tiktoken: repeatedly merge the
 * adjacent pair of lowest rank, leftmost first). The rank of each adjacent pair is kept and only the merged pair's
 * neighbours are looked up again, so a merge costs a scan of numbers, not a key per pair.
 */
function mergedCount(bytes: Uint8Array, table: RankTable): number {
  const rankOf = (start: number, end: number) => {
    const rank = table.rankOf(bytes, start, end);
    return rank < 0 ? Infinity : rank;
  };
  // starts[i]: where part i begins (the last entry is the end); pairRank[i]: rank of parts i and i + 1 merged.
  const starts: number[] = Array.from({ length: bytes.length + 1 }, (_, index) => index);
  const pairRank: number[] = Array.from({ length: bytes.length }, (_, index) =>
    index + 2 <= bytes.length ? rankOf(index, index + 2) : Infinity,
  );
  while (starts.length > 2) {
    let best = -1;
    let bestRank = Infinity;
    for (let index = 0; index < starts.length - 2; index += 1) {
      if (pairRank[index]! < bestRank) {
        bestRank = pairRank[index]!;
        best = index;
      }
    }
    if (best < 0) break;
    starts.splice(best + 1, 1);
    pairRank.splice(best + 1, 1);
    pairRank[best] = best + 2 < starts.length ? rankOf(starts[best]!, starts[best + 2]!) : Infinity;
    if (best > 0) pairRank[best - 1] = rankOf(starts[best - 1]!, starts[best + 1]!);
  }
  let count = 0;
  for (let index = 0; index < starts.length - 1; index += 1) {
    if (table.rankOf(bytes, starts[index]!, starts[index + 1]!) >= 0) count += 1;
  }
  return count;
}

/** mergedCount of a piece, in runs of MAX_PIECE_BYTES when it is longer. */
function pieceCount(bytes: Uint8Array, table: RankTable): number {
  if (bytes.length <= MAX_PIECE_BYTES) return mergedCount(bytes, table);
  let total = 0;
  for (let start = 0; start < bytes.length; start += MAX_PIECE_BYTES) {
    total += mergedCount(bytes.subarray(start, start + MAX_PIECE_BYTES), table);
  }
  return total;
}

/**
 * A token counter equivalent to `tiktoken.encode(text, [], []).length` (pieces up to MAX_PIECE_BYTES), but with the split
 * pattern compiled once (js-tiktoken recompiles it on every call) and a memo per piece.
 */
export function bpeCounter(table: RankTable): (text: string) => number {
  const pattern = new RegExp(table.patStr, 'gu');
  const encoder = new TextEncoder();
  const memo = new Map<string, number>();
  return (text) => {
    let total = 0;
    for (const match of text.matchAll(pattern)) {
      const piece = match[0];
      let count = memo.get(piece);
      if (count === undefined) {
        const bytes = encoder.encode(piece);
        count =
          bytes.length <= MAX_PIECE_BYTES && table.rankOf(bytes, 0, bytes.length) >= 0 ? 1 : pieceCount(bytes, table);
        if (memo.size >= MAX_MEMO) memo.clear();
        memo.set(piece, count);
      }
      total += count;
    }
    return total;
  };
}
