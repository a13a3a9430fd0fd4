import { enforceBudget } from '../constraints/enforce-budget.js';
import { enforceFirstUser } from '../constraints/enforce-first-user.js';
import type { SelectionUnit } from '../selection/selection-algorithm.js';
import { summaryReserve } from '../summarize/summary-reserve.js';
import type { EngineOptions } from '../types.js';

/** Token totals of a selection. */
export interface SelectionTotals {
  /** Kept chat units. */
  chat: number;
  /** Summary block reserve (0 unless summarizing). */
  reserve: number;
  /** Tokens of units to summarize. */
  summarized: number;
}

/** Totals of the kept units and of the summary reserve for the rest. */
export function selectionTotals(units: readonly SelectionUnit[], kept: readonly boolean[], options: EngineOptions): SelectionTotals {
  let chat = 0;
  let summarized = 0;
  for (const unit of units) {
    if (kept[unit.position]) chat += unit.tokens;
    else if (!unit.excluded) summarized += unit.tokens;
  }
  const reserve = options.summarize ? summaryReserve(summarized, options.summaryRatio, options.summaryMaxTokens) : 0;
  return { chat, reserve, summarized: options.summarize ? summarized : 0 };
}

/**
 * Repairs a selection until stable: within `aim` (dropping optional units, with the summary
 * reserve recomputed as it grows: W6, C3) and starting with a user message (C2). Returns
 * the positions dropped by the first-user rule.
 */
export function repairSelection(units: readonly SelectionUnit[], kept: boolean[], fixed: number, aim: number, options: EngineOptions): Set<number> {
  const droppedForOrder = new Set<number>();
  for (let round = 0; round < 32; round += 1) {
    let changed = false;
    const before = selectionTotals(units, kept, options);
    const total = fixed + before.chat + before.reserve;
    if (total > aim) {
      const chat = enforceBudget(units, kept, before.chat, aim - fixed - before.reserve);
      changed = chat !== before.chat;
    }
    const now = selectionTotals(units, kept, options);
    const order = enforceFirstUser(units, kept, aim - fixed - now.chat - now.reserve);
    if (order.delta !== 0 || order.dropped.length > 0) changed = true;
    for (const position of order.dropped) droppedForOrder.add(position);
    if (!changed) break;
  }
  return droppedForOrder;
}
