import type { ChatNode } from '../conversation/chat-node.js';
import { asksAboutTime, hasDateExpression } from './time-expressions.js';

/** Share of a message's score lent to the dated message before it, on time questions. */
export const TIME_ANCHOR_SHARE = 0.95;

/**
 * Temporal anchors: when the query asks about time, every chat message lends `share` of its
 * score to the closest earlier chat message that names a date (typically a session opener
 * "It's Monday, 3 March"), which then scores at least that. So "when did I…?" keeps the
 * date along with the event. Scores are changed in place; the query itself does not lend.
 * `dated` tells whether a message names a date (the caller may remember it per message).
 */
export function lendToTimeAnchors(
  nodes: readonly ChatNode[],
  scores: Float64Array,
  query: string,
  queryIndex: number,
  dated: (node: ChatNode) => boolean = (node) => hasDateExpression(node.text),
  share = TIME_ANCHOR_SHARE,
): void {
  if (!asksAboutTime(query)) return;
  let anchor = -1;
  for (const node of nodes) {
    if (node.isSystem || node.index === queryIndex) continue;
    if (anchor >= 0) scores[anchor] = Math.max(scores[anchor]!, share * scores[node.index]!);
    if (dated(node)) anchor = node.index;
  }
}
