import { enforceBudget } from '../constraints/enforce-budget.js';
import { enforceFirstUser } from '../constraints/enforce-first-user.js';
import type { SelectionUnit } from '../selection/selection-algorithm.js';
import { grantedSummaryReserve, summaryReserve } from '../summarize/summary-reserve.js';
import type { EngineOptions } from '../types.js';

/** Token totals of a selection. */
export interface SelectionTotals {
  /** Kept chat units. */
  chat: number;
  /** Summary block reserve granted (0 unless summarizing and there is room). */
  reserve: number;
  /** Reserve the summary would want (before the room limit). */
  wanted: number;
  /** Tokens of units to summarize (0 when no summary is possible). */
  summarized: number;
}

/** Totals of the kept units and of the summary reserve for the rest, within `aim`. */
export function selectionTotals(
  units: readonly SelectionUnit[],
  kept: readonly boolean[],
  options: EngineOptions,
  fixed: number,
  aim: number,
): SelectionTotals {
  let chat = 0;
  let rest = 0;
  for (const unit of units) {
    if (kept[unit.position]) chat += unit.tokens;
    else if (!unit.excluded) rest += unit.tokens;
  }
  if (!options.summarize) return { chat, reserve: 0, wanted: 0, summarized: 0 };
  const wanted = summaryReserve(rest, options.summaryRatio, options.summaryMaxTokens);
  const reserve = grantedSummaryReserve(wanted, aim, aim - fixed - chat);
  return { chat, reserve, wanted: grantedSummaryReserve(wanted, aim, Infinity), summarized: reserve > 0 ? rest : 0 };
}

/**
 * Repairs a selection until stable: within `aim` (dropping optional units, leaving room for
 * the summary reserve as it grows, so repairs never push the total over budget) and starting
 * with a user message. Returns
 * the positions dropped by the first-user rule.
 */
export function repairSelection(
  units: readonly SelectionUnit[],
  kept: boolean[],
  fixed: number,
  aim: number,
  options: EngineOptions,
): Set<number> {
  const droppedForOrder = new Set<number>();
  for (let round = 0; round < 32; round += 1) {
    let changed = false;
    const before = selectionTotals(units, kept, options, fixed, aim);
    if (fixed + before.chat + before.wanted > aim) {
      const chat = enforceBudget(units, kept, before.chat, aim - fixed - before.wanted);
      changed = chat !== before.chat;
    }
    const now = selectionTotals(units, kept, options, fixed, aim);
    const order = enforceFirstUser(units, kept, aim - fixed - now.chat - now.wanted);
    if (order.delta !== 0 || order.dropped.length > 0) changed = true;
    for (const position of order.dropped) droppedForOrder.add(position);
    if (!changed) break;
  }
  return droppedForOrder;
}
