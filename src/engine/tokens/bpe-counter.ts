/** What the counter needs from a js-tiktoken `Tiktoken` (its internal rank table and pattern). */
export interface RankTable {
  /** Byte sequence (comma-joined) → rank. */
  rankMap: Map<string, number>;
  patStr: string;
}

/** Bounded memo of piece → token count (chat text repeats its words a lot). */
const MAX_MEMO = 200_000;

/** Tokens of one byte sequence by byte-pair merging (the same merge rule as js-tiktoken). */
function mergedCount(bytes: Uint8Array, ranks: Map<string, number>): number {
  const parts: Array<{ start: number; end: number }> = Array.from({ length: bytes.length }, (_, index) => ({
    start: index,
    end: index + 1,
  }));
  const key = (start: number, end: number) => bytes.subarray(start, end).join(',');
  while (parts.length > 1) {
    let best = -1;
    let bestRank = Infinity;
    for (let index = 0; index < parts.length - 1; index += 1) {
      const rank = ranks.get(key(parts[index]!.start, parts[index + 1]!.end));
      if (rank !== undefined && rank < bestRank) {
        bestRank = rank;
        best = index;
      }
    }
    if (best < 0) break;
    parts[best] = { start: parts[best]!.start, end: parts[best + 1]!.end };
    parts.splice(best + 1, 1);
  }
  return parts.filter((part) => ranks.has(key(part.start, part.end))).length;
}

/**
 * A token counter equivalent to `tiktoken.encode(text, [], []).length`, but with the split
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
        count = table.rankMap.has(bytes.join(',')) ? 1 : mergedCount(bytes, table.rankMap);
        if (memo.size >= MAX_MEMO) memo.clear();
        memo.set(piece, count);
      }
      total += count;
    }
    return total;
  };
}
