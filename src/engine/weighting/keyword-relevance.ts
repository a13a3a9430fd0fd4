import type { ChatNode } from '../conversation/chat-node.js';
import type { TermCache } from '../types.js';
import { bm25Scores } from './bm25-scores.js';
import { lendToTimeAnchors } from './time-anchors.js';

/**
 * BM25 relevance of every chat message to the query, divided by the best score and floored:
 * max(floor, raw / max). The query's own message (`queryIndex`) is left out of the corpus and
 * scores 1, so it does not squash everyone else to the floor. System messages get 1; all 1
 * when nothing matches. With `termCache`, word counts are cached by message id. On time
 * questions, dated messages borrow the scores of the messages after them (`lendToTimeAnchors`).
 */
export function keywordRelevance(nodes: readonly ChatNode[], query: string, floor: number, queryIndex = -1, termCache?: TermCache): Float64Array {
  const chat = nodes.filter((node) => !node.isSystem && node.index !== queryIndex);
  const raw = bm25Scores(chat.map((node) => node.text), query, termCache ? { keys: chat.map((node) => node.id), cache: termCache } : undefined);
  const best = raw.reduce((max, value) => Math.max(max, value), 0);
  const scores = new Float64Array(nodes.length).fill(1);
  if (best <= 0) return scores;
  chat.forEach((node, position) => {
    scores[node.index] = Math.max(floor, raw[position]! / best);
  });
  lendToTimeAnchors(nodes, scores, query, queryIndex);
  return scores;
}
