import type { PlanEntry } from '../types.js';

/**
 * Input indexes of the messages to send, in send order. With `leading` (cache_stable's fresh share after its core): the
 * system prompts, the leading messages in their given order, the rest of the kept history in input order, then the
 * current turn. Otherwise the kept history in input order, then the recalled messages (prefix_cache recall,
 * cache_stable's fresh share; input order), then the current turn (from `currentTurnStart`, the last user message).
 * Falls back to plain input order when there is nothing to reorder or when the reordering would not start the chat
 * with a user message. `leading`: how many leading messages were placed first (0 when none or on that fallback).
 */
export function sendOrder(
  entries: readonly PlanEntry[],
  recalled: ReadonlySet<number>,
  currentTurnStart: number,
  isSystem: (index: number) => boolean,
  leading: readonly number[] = [],
): { order: number[]; leading: number } {
  const kept = entries
    .filter((entry) => entry.disposition === 'keep' || entry.disposition === 'pinned')
    .map((entry) => entry.index);
  if (currentTurnStart < 0 || (leading.length === 0 && recalled.size === 0)) return { order: kept, leading: 0 };
  const keptSet = new Set(kept);
  const lead = leading.filter((index) => keptSet.has(index) && index < currentTurnStart && !isSystem(index));
  const moved = new Set(lead.length > 0 ? lead : kept.filter((index) => recalled.has(index)));
  if (moved.size === 0) return { order: kept, leading: 0 };
  const history = kept.filter((index) => index < currentTurnStart && !moved.has(index));
  const turn = kept.filter((index) => index >= currentTurnStart && !moved.has(index));
  const order =
    lead.length > 0
      ? [...history.filter(isSystem), ...lead, ...history.filter((index) => !isSystem(index)), ...turn]
      : [...history, ...kept.filter((index) => moved.has(index)), ...turn];
  const opening = order.find((index) => !isSystem(index));
  return opening === undefined || entries[opening]!.role === 'user'
    ? { order, leading: lead.length }
    : { order: kept, leading: 0 };
}
