import { containsEntity } from './contains-entity.js';
import { TwoGenerationMap } from '../cache/two-generation-map.js';
import { forEachTerm } from '../weighting/tokenize-terms.js';

/** A text cut to its head, the pieces that match the question (with their neighbours) and its tail. */
export interface TrimmedText {
  text: string;
  /** Lines (or JSON array items) left out. */
  leftOut: number;
  /** What was counted: lines of text, or items of a JSON array. */
  unit: 'lines' | 'items';
}

/** Counts the tokens of a text. */
export type CountText = (text: string) => number;

/** Pieces longer than this many characters are cut into pieces of this size (a one-line log or minified output). */
const PIECE_CHARS = 1000;
/** Fewer pieces than this: nothing worth trimming by lines. */
const MIN_PIECES = 8;
/** Share of the target spent on the head and on the tail. */
const HEAD_SHARE = 0.15;
const TAIL_SHARE = 0.1;
/** Pieces kept before and after a matching piece (what follows a match, a heading's entries, says more). */
const BEFORE = 1;
const AFTER = 3;
/** Tokens a gap marker costs, at most (`\n… 12,345 lines left out …\n`). */
const MARKER_TOKENS = 12;
/** A JSON text longer than this is trimmed by lines without parsing it. */
const JSON_PARSE_CHARS = 8_000_000;

/** The marker of a gap: `… 1,184 lines left out …`. */
export function gapMarker(count: number, unit: 'lines' | 'items'): string {
  const noun = count === 1 ? unit.slice(0, -1) : unit;
  return `… ${count.toLocaleString('en-US')} ${noun} left out …`;
}

/** The text cut into pieces: its lines, a line longer than PIECE_CHARS cut into pieces of that size. */
function splitPieces(text: string): { pieces: string[]; joiners: string[] } {
  const pieces: string[] = [];
  const joiners: string[] = [];
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    const last = index === lines.length - 1;
    if (line.length <= PIECE_CHARS) {
      pieces.push(line);
      joiners.push(last ? '' : '\n');
      return;
    }
    for (let start = 0; start < line.length; start += PIECE_CHARS) {
      pieces.push(line.slice(start, start + PIECE_CHARS));
      joiners.push(start + PIECE_CHARS >= line.length && !last ? '\n' : '');
    }
  });
  return { pieces, joiners };
}

/** Entity → score in (0, 1]: what the chat's previous replies used (the echo loop, `PlanInput.echo.terms`). */
export type EchoTerms = Readonly<Record<string, number>>;

/** At most this many entities' pieces are remembered per text (a chat's echo holds at most 64 at a time). */
const MAX_REMEMBERED_ENTITIES = 256;

/**
 * Adds the echo loop's part to each piece's score: a piece holding an entity a previous reply repeated gains the
 * entity's score × the idf of a term found in one piece (`log(1 + pieces)`), as much as the question's rarest word.
 * The pieces holding each entity are remembered with the text's analysis (the same entities come back each turn).
 */
function addEchoScores(scores: Float64Array, set: PieceSet, echo: EchoTerms, text: string): void {
  const { pieces } = set;
  const unit = Math.log(1 + pieces.length);
  for (const [entity, score] of Object.entries(echo)) {
    if (!(score > 0)) continue;
    let holders = set.entities?.get(entity);
    if (!holders) {
      holders = [];
      if (text.includes(entity))
        pieces.forEach((piece, index) => {
          if (piece.includes(entity) && containsEntity(piece, entity)) holders!.push(index);
        });
      if (!set.entities || set.entities.size >= MAX_REMEMBERED_ENTITIES) set.entities = new Map();
      set.entities.set(entity, holders);
    }
    for (const index of holders) scores[index]! += unit * Math.min(1, score);
  }
}

/**
 * Pieces (lines, or a JSON array's items) and what trimming reads of them whatever the question: the pieces holding
 * each term (built on first need) and each piece's token cost (filled as it is asked, for one token counter).
 */
interface PieceSet {
  pieces: string[];
  postings?: Map<string, number[]>;
  /** Echo entity → the pieces holding it (whole-token match), filled as entities are asked. */
  entities?: Map<string, number[]>;
  cost: Float64Array;
  /** The token counter `cost` holds counts of (see `TrimMemo`). */
  counter?: unknown;
}

function pieceSet(pieces: string[]): PieceSet {
  return { pieces, cost: new Float64Array(pieces.length).fill(-1) };
}

/** Term → the pieces holding it, ascending, each once. */
function postingsOf(set: PieceSet): Map<string, number[]> {
  if (set.postings) return set.postings;
  const postings = new Map<string, number[]>();
  set.pieces.forEach((piece, index) => {
    forEachTerm(piece, (term) => {
      const list = postings.get(term);
      if (!list) postings.set(term, [index]);
      else if (list[list.length - 1] !== index) list.push(index);
    });
  });
  set.postings = postings;
  return postings;
}

/** Score of each piece against the question: the sum of the idf of the question's terms it contains. */
function pieceScores(set: PieceSet, terms: ReadonlySet<string>, echo?: EchoTerms, text = ''): Float64Array {
  const { pieces } = set;
  const scores = new Float64Array(pieces.length);
  if (echo) addEchoScores(scores, set, echo, text);
  if (terms.size === 0) return scores;
  const postings = postingsOf(set);
  for (const term of terms) {
    const holders = postings.get(term);
    if (!holders) continue;
    const idf = Math.log(1 + pieces.length / holders.length);
    for (const index of holders) scores[index]! += idf;
  }
  return scores;
}

/**
 * Which pieces to keep within `target` tokens: the head, the tail, then the best-scoring pieces with their
 * neighbours, best first, each while it fits (ties to the earlier piece).
 */
function choosePieces(
  set: PieceSet,
  scores: Float64Array,
  target: number,
  count: CountText,
  counter: unknown,
): Uint8Array | undefined {
  const { pieces, cost } = set;
  if (set.counter !== counter || counter === undefined) {
    cost.fill(-1);
    set.counter = counter;
  }
  const keep = new Uint8Array(pieces.length);
  const costOf = (index: number) => {
    if (cost[index]! < 0) cost[index] = count(pieces[index]!) + 1;
    return cost[index]!;
  };
  let used = 0;
  const isNewIsland = (index: number) => !(keep[index - 1] || keep[index + 1]);
  const take = (index: number, limit: number): boolean => {
    if (index < 0 || index >= pieces.length || keep[index]) return true;
    const extra = costOf(index) + (isNewIsland(index) ? MARKER_TOKENS : 0);
    if (used + extra > limit) return false;
    keep[index] = 1;
    used += extra;
    return true;
  };
  const head = target * HEAD_SHARE;
  for (let index = 0; index < pieces.length && (index === 0 || used < head); index += 1)
    if (!take(index, index === 0 ? target : head)) break;
  const tailLimit = used + target * TAIL_SHARE;
  for (let index = pieces.length - 1; index > 0 && used < tailLimit; index -= 1) if (!take(index, tailLimit)) break;
  const ranked: number[] = [];
  scores.forEach((score, index) => {
    if (score > 0) ranked.push(index);
  });
  ranked.sort((a, b) => scores[b]! - scores[a]! || a - b);
  for (const index of ranked) {
    if (!take(index, target)) continue;
    // Neighbours are counted in non-blank pieces (blank lines between them are kept, and cost next to nothing).
    for (let next = index + 1, seen = 0; next < pieces.length && seen < AFTER; next += 1) {
      if (!take(next, target)) break;
      if (pieces[next]!.trim()) seen += 1;
    }
    for (let previous = index - 1, seen = 0; previous >= 0 && seen < BEFORE; previous -= 1) {
      if (!take(previous, target)) break;
      if (pieces[previous]!.trim()) seen += 1;
    }
  }
  return keep.includes(0) ? keep : undefined;
}

/** The kept pieces in order, each gap replaced by one marker line. */
function renderPieces(
  pieces: readonly string[],
  joiners: readonly string[],
  keep: Uint8Array,
): { text: string; leftOut: number } {
  let text = '';
  let leftOut = 0;
  let gap = 0;
  for (let index = 0; index <= pieces.length; index += 1) {
    if (index < pieces.length && !keep[index]) {
      gap += 1;
      continue;
    }
    if (gap > 0) {
      if (text.length > 0 && !text.endsWith('\n')) text += '\n';
      text += gapMarker(gap, 'lines');
      if (index < pieces.length) text += '\n';
      leftOut += gap;
      gap = 0;
    }
    if (index < pieces.length) text += pieces[index]! + joiners[index]!;
  }
  return { text, leftOut };
}

/** The array of a parsed JSON value worth trimming: the value itself, or its largest array property. */
function largestArray(value: unknown): { array: unknown[]; put: (items: unknown[]) => unknown } | undefined {
  if (Array.isArray(value)) return { array: value, put: (items) => items };
  if (value === null || typeof value !== 'object') return undefined;
  let best: string | undefined;
  for (const [key, item] of Object.entries(value))
    if (Array.isArray(item) && (best === undefined || item.length > (value as Record<string, unknown[]>)[best]!.length))
      best = key;
  if (best === undefined) return undefined;
  const key = best;
  return { array: (value as Record<string, unknown[]>)[key]!, put: (items) => ({ ...value, [key]: items }) };
}

/** A JSON text's array worth trimming, its items as they are re-encoded, and their pieces' analysis. */
interface JsonAnalysis {
  found: { array: unknown[]; put: (items: unknown[]) => unknown };
  indent: number | undefined;
  items: PieceSet;
}

/** The JSON analysis of a text: undefined when it is not JSON with an array of at least MIN_PIECES items. */
function analyzeJson(text: string): JsonAnalysis | undefined {
  const start = text.trimStart()[0];
  if ((start !== '[' && start !== '{') || text.length > JSON_PARSE_CHARS) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const found = largestArray(parsed);
  if (!found || found.array.length < MIN_PIECES) return undefined;
  const indent = text.includes('\n') ? 2 : undefined;
  return { found, indent, items: pieceSet(found.array.map((item) => JSON.stringify(item, null, indent))) };
}

/** A JSON text with an array of items: trimmed item by item, gaps marked by a string item; else undefined. */
function trimJson(
  analysis: JsonAnalysis,
  text: string,
  terms: ReadonlySet<string>,
  target: number,
  count: CountText,
  echo: EchoTerms | undefined,
  counter: unknown,
): TrimmedText | undefined {
  const { found, indent, items } = analysis;
  const overhead = count(JSON.stringify(found.put([]), null, indent));
  const keep = choosePieces(
    items,
    pieceScores(items, terms, echo, text),
    Math.max(0, target - overhead),
    count,
    counter,
  );
  if (!keep) return undefined;
  const kept: unknown[] = [];
  let gap = 0;
  let leftOut = 0;
  for (let index = 0; index <= items.pieces.length; index += 1) {
    if (index < items.pieces.length && !keep[index]) {
      gap += 1;
      continue;
    }
    if (gap > 0) {
      kept.push(gapMarker(gap, 'items'));
      leftOut += gap;
      gap = 0;
    }
    if (index < items.pieces.length) kept.push(found.array[index]);
  }
  return { text: JSON.stringify(found.put(kept), null, indent), leftOut, unit: 'items' };
}

/** What trimming reads of one text whatever the question: its JSON analysis (null: not trimmable JSON), its lines. */
interface TextAnalysis {
  text: string;
  json: JsonAnalysis | null;
  lines?: PieceSet & { joiners: string[] };
}

/**
 * The analyses of the long texts trimmed lately (8 to 16 of them), by the caller's key (a message's content id): an earlier turn's tool
 * result is trimmed again on every turn, for every question, and its lines, terms and token costs do not change. A
 * hit is checked against the text itself, so a key reused for another text only costs a miss.
 */
const analyses = new TwoGenerationMap<string, TextAnalysis>(8);
/** Longer texts are analysed anew each time: at most 16 remembered texts of 1 Mi characters (and their postings). */
const MEMO_MAX_CHARS = 1 << 20;

/** Forgets every remembered analysis (benches measure a trim with nothing remembered against one that reuses them). */
export function forgetTrimAnalyses(): void {
  analyses.clear();
}

/** How `trimText` may remember a text's analysis: a key naming the text, and the identity of the token counter. */
export interface TrimMemo {
  key: string;
  /** Token costs are reused only with the same counter (an encoder and a correction factor, say). */
  counter: unknown;
}

function analysisOf(text: string, memo: TrimMemo | undefined): TextAnalysis {
  const remember = memo !== undefined && text.length <= MEMO_MAX_CHARS;
  const known = remember ? analyses.get(memo.key) : undefined;
  if (known && known.text === text) return known;
  const analysis: TextAnalysis = { text, json: analyzeJson(text) ?? null };
  if (remember) analyses.set(memo.key, analysis);
  return analysis;
}

/**
 * `text` cut to about `target` tokens: its head, the lines (or, for a JSON array, the items) that contain the
 * question's terms with their neighbours, best first, and its tail, each gap replaced by a marker saying how many
 * lines were left out. With `echo`, the pieces holding what the chat's previous replies used score higher too.
 * Undefined when there is nothing to cut (too few lines, or everything fits). Deterministic: the same arguments
 * give the same text, byte for byte.
 */
export function trimText(
  text: string,
  terms: ReadonlySet<string>,
  target: number,
  count: CountText,
  echo?: EchoTerms,
  memo?: TrimMemo,
): TrimmedText | undefined {
  const analysis = analysisOf(text, memo);
  const counter = memo?.counter;
  if (analysis.json) {
    const json = trimJson(analysis.json, text, terms, target, count, echo, counter);
    if (json) return json;
  }
  if (!analysis.lines) {
    const { pieces, joiners } = splitPieces(text);
    analysis.lines = { ...pieceSet(pieces), joiners };
  }
  const lines = analysis.lines;
  if (lines.pieces.length < MIN_PIECES) return undefined;
  const keep = choosePieces(lines, pieceScores(lines, terms, echo, text), target, count, counter);
  if (!keep) return undefined;
  const rendered = renderPieces(lines.pieces, lines.joiners, keep);
  return { text: rendered.text, leftOut: rendered.leftOut, unit: 'lines' };
}
