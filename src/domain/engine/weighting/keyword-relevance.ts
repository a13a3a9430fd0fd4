import type { ChatNode } from '../conversation/chat-node.js';
import type { TermCache, TermCounts } from '../types.js';
import { bm25FromMatrix, postingsEnd, type TermMatrix, termMatrix } from './bm25-scores.js';
import {
  NEIGHBOUR_DECAY,
  NEIGHBOUR_SHARE,
  NEIGHBOUR_WINDOW,
  REGION_RADIUS,
  smoothNeighbours,
} from './neighbour-smoothing.js';
import { namedTerms } from './query-terms.js';
import { passageScores } from './passage-scores.js';
import { lendToTimeAnchors } from './time-anchors.js';
import { asksAboutTime, NAMES_DATE, REFERS_TO_TIME, timeFacts } from './time-expressions.js';

/** Weight of the best passage containing a message, relative to message scores. */
export const PASSAGE_SHARE = 0.5;
/**
 * A message that mentions a name of the question (`namedTerms`: a person, a place, a class) gains this share of
 * the best score before scores are divided by the best: among the many messages a question's other words barely
 * tell apart, those about whom or what it asks come first (LoCoMo dev, 2k / 8k: 89.9 → 90.2 %, 95.5 → 96.0 %).
 */
export const NAME_BONUS = 0.15;
/** On time questions, a message that refers to a time ("yesterday", "last May", a date) scores (1 + this) times higher. */
export const TIME_REFERENCE_BOOST = 1;

/**
 * Raw relevance of each chat document: its BM25 score plus PASSAGE_SHARE × its best
 * passage's score (rescaled to the range of message scores), doubled on time questions for a
 * message that refers to a time (the event of "when did I…?" is usually told with "yesterday"
 * or a date), then smoothed over neighbours.
 */
export function chatRelevance(
  documents: readonly string[],
  query: string,
  keys: readonly string[] | undefined,
  termCache: TermCache | undefined,
  neighbourShare = NEIGHBOUR_SHARE,
  findNames = true,
): { scores: Float64Array; tables: readonly TermCounts[]; named: Uint8Array | undefined } {
  const matrix = termMatrix(documents, query, keys && termCache ? { keys, cache: termCache } : undefined);
  const tables = matrix.tables ?? [];
  const named = findNames ? namedDocuments(matrix, query) : undefined;
  const own = bm25FromMatrix(matrix);
  const passages = passageScores(matrix);
  const bestOwn = own.reduce((max, value) => Math.max(max, value), 0);
  const bestPassage = passages.reduce((max, value) => Math.max(max, value), 0);
  // How much a message borrows from its context, 1 by default (smart weighting: pairCoherence relative to the default share).
  const context = Math.min(1, neighbourShare / NEIGHBOUR_SHARE);
  const scale = bestPassage > 0 ? (context * PASSAGE_SHARE * bestOwn) / bestPassage : 0;
  for (let index = 0; index < own.length; index += 1) own[index] = own[index]! + scale * passages[index]!;
  if (asksAboutTime(query)) {
    for (let index = 0; index < own.length; index += 1) {
      if (own[index]! > 0 && timeFacts(documents[index]!, tables[index]) & REFERS_TO_TIME)
        own[index] = own[index]! * (1 + TIME_REFERENCE_BOOST);
    }
  }
  return {
    scores: smoothNeighbours(own, NEIGHBOUR_WINDOW, neighbourShare, NEIGHBOUR_DECAY, context > 0 ? REGION_RADIUS : 0),
    tables,
    named,
  };
}

/** 1 for each document that mentions a name of the query (`namedTerms`), read from the postings of those terms; undefined when the query names nothing. */
function namedDocuments(matrix: TermMatrix, query: string): Uint8Array | undefined {
  const names = new Set(namedTerms(query));
  if (names.size === 0) return undefined;
  const named = new Uint8Array(matrix.count);
  matrix.terms.forEach((term, column) => {
    if (!names.has(term)) return;
    const postings = matrix.postings[column]!;
    const end = postingsEnd(postings, matrix.count);
    for (let at = 0; at < end; at += 2) named[postings[at]!] = 1;
  });
  return named;
}

/**
 * Relevance of every chat message to the query (`chatRelevance`), divided by the best score
 * and floored: max(floor, raw / max). The query's own message (`queryIndex`) is left out of
 * the corpus and scores 1, so it does not squash everyone else to the floor. System messages
 * get 1; all 1 when nothing matches. With `termCache`, term tables are cached by message id;
 * `neighbourShare` is the share of a score lent to adjacent messages (smart weighting: pairCoherence;
 * 0 scores every message on its own words alone, without passages or regions).
 * On time questions, dated messages borrow the scores of the messages after them. `nameBonus`: see NAME_BONUS
 * (smart weighting, lethes' model, passes 0).
 */
export function keywordRelevance(
  nodes: readonly ChatNode[],
  query: string,
  floor: number,
  queryIndex = -1,
  termCache?: TermCache,
  neighbourShare = NEIGHBOUR_SHARE,
  nameBonus = NAME_BONUS,
): Float64Array {
  const chat = nodes.filter((node) => !node.isSystem && node.index !== queryIndex);
  const {
    scores: raw,
    tables,
    named,
  } = chatRelevance(
    chat.map((node) => node.text),
    query,
    chat.map((node) => node.id),
    termCache,
    neighbourShare,
    nameBonus > 0,
  );
  let best = raw.reduce((max, value) => Math.max(max, value), 0);
  const scores = new Float64Array(nodes.length).fill(1);
  if (best <= 0) return scores;
  if (named) best = addNameBonus(raw, named, best * nameBonus, best);
  const positionOf = new Int32Array(nodes.length);
  chat.forEach((node, position) => {
    scores[node.index] = Math.max(floor, raw[position]! / best);
    positionOf[node.index] = position;
  });
  lendToTimeAnchors(
    nodes,
    scores,
    query,
    queryIndex,
    (node) => (timeFacts(node.text, tables[positionOf[node.index]!]) & NAMES_DATE) !== 0,
  );
  return scores;
}

/** Adds `bonus` to the raw score of each message that mentions a name of the query (`named`); the new best. */
function addNameBonus(raw: Float64Array, named: Uint8Array, bonus: number, best: number): number {
  let newBest = best;
  for (let position = 0; position < raw.length; position += 1) {
    if (named[position] !== 1) continue;
    raw[position] = raw[position]! + bonus;
    if (raw[position]! > newBest) newBest = raw[position]!;
  }
  return newBest;
}
