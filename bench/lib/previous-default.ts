import { bm25Scores } from './bm25.js';
import { fillInOrder, type SelectionInput } from './selection.js';

/**
 * The ranking rule of Eunoe's previous default (v0.1, before real-data tuning), re-implemented
 * as a baseline: plain BM25 over raw words (no stemming, stop words kept), scores divided by
 * the best and floored at 0.1, × (1 + 0.25 · position), ranked by weight ÷ √tokens, the last 4
 * messages always kept. Close to, not identical with, that engine (which also had time anchors).
 */
export function previousDefault(input: SelectionInput): number[] {
  const { messages, tokens } = input;
  const last = messages.length - 1;
  const raw = bm25Scores(
    messages.map((message, index) => (index === last ? '' : message.content)),
    messages[last]?.content ?? '',
    { k1: 1.5, b: 0.75 },
  );
  const best = Math.max(...raw, 0);
  const span = Math.max(messages.length - 1, 1);
  const key = raw.map(
    (score, index) =>
      ((best > 0 ? Math.max(0.1, score / best) : 1) * (1 + (0.25 * index) / span)) /
      Math.sqrt(Math.max(1, tokens[index] ?? 1)),
  );
  const recent = messages
    .map((_, index) => index)
    .slice(-4)
    .reverse();
  const ranked = messages.map((_, index) => index).sort((a, b) => key[b]! - key[a]! || b - a);
  return fillInOrder(input, [...recent, ...ranked]);
}
