import type { PlanEntry } from '../types.js';

/**
 * Input indexes of the messages to send, in send order: the kept history in input order,
 * then the recalled messages (prefix_cache recall, input order), then the current turn
 * (from `currentTurnStart`, the last user message). Falls back to plain input order when
 * nothing is recalled or when the reordering would not start the chat with a user message.
 */
export function sendOrder(
  entries: readonly PlanEntry[],
  recalled: ReadonlySet<number>,
  currentTurnStart: number,
  isSystem: (index: number) => boolean,
): number[] {
  const kept = entries
    .filter((entry) => entry.disposition === 'keep' || entry.disposition === 'pinned')
    .map((entry) => entry.index);
  if (recalled.size === 0 || currentTurnStart < 0) return kept;
  const middle = kept.filter((index) => recalled.has(index));
  if (middle.length === 0) return kept;
  const history = kept.filter((index) => !recalled.has(index) && index < currentTurnStart);
  const turn = kept.filter((index) => !recalled.has(index) && index >= currentTurnStart);
  const order = [...history, ...middle, ...turn];
  const first = order.find((index) => !isSystem(index));
  return first === undefined || entries[first]!.role === 'user' ? order : kept;
}
