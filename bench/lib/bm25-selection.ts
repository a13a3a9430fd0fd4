import { bm25Scores } from './bm25.js';
import { fillInOrder, lastUserIndex, type SelectionInput } from './selection.js';

/** BM25 baseline: chat messages by BM25 score against the last user message (ties: newest first), kept while they fit. */
export function bm25Selection(input: SelectionInput): number[] {
  const last = lastUserIndex(input.messages);
  const query = input.messages[last]?.content ?? '';
  const scores = bm25Scores(input.messages.map((message) => message.content), query);
  const order = input.messages
    .map((_, index) => index)
    .sort((a, b) => (scores[b] ?? 0) - (scores[a] ?? 0) || b - a);
  return fillInOrder(input, order);
}
