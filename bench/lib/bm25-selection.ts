import { bm25Scores } from './bm25.js';
import { fillInOrder, lastUserIndex, type SelectionInput } from './selection.js';

/**
 * BM25 baseline: chat messages by BM25 score against the last user message (ties: newest
 * first), each kept while it fits. With `recent` > 0 the newest `recent` messages go first
 * (a diagnostic variant with the engine's recent-turn guarantee).
 */
export function bm25Selection(input: SelectionInput, recent = 0): number[] {
  const last = lastUserIndex(input.messages);
  const query = input.messages[last]?.content ?? '';
  const scores = bm25Scores(
    input.messages.map((message) => message.content),
    query,
  );
  const newest = input.messages
    .map((_, index) => index)
    .slice(-recent || input.messages.length)
    .reverse();
  const byScore = input.messages.map((_, index) => index).sort((a, b) => (scores[b] ?? 0) - (scores[a] ?? 0) || b - a);
  return fillInOrder(input, recent > 0 ? [...newest, ...byScore] : byScore);
}
