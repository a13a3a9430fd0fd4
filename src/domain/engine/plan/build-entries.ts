import type { UnitMarks } from '../constraints/mark-units.js';
import type { Conversation } from '../conversation/chat-node.js';
import type { SelectionUnit } from '../selection/selection-algorithm.js';
import type { PlanEntry } from '../types.js';

/** Everything needed to describe each message's fate. */
export interface EntryInputs {
  conversation: Conversation;
  units: readonly SelectionUnit[];
  kept: readonly boolean[];
  marks: UnitMarks;
  tokens: ArrayLike<number>;
  weights: ArrayLike<number>;
  droppedForOrder: ReadonlySet<number>;
  /** Over-budget messages go to a summary (a summarizer exists and the reserve fits). */
  summarizing: boolean;
}

const SYSTEM_FATE: Pick<PlanEntry, 'disposition' | 'reason'> = {
  disposition: 'keep',
  reason: 'system message (always kept)',
};

/** Disposition and reason of one chat unit. */
function unitFate(position: number, inputs: EntryInputs): Pick<PlanEntry, 'disposition' | 'reason'> {
  const { units, kept, marks, droppedForOrder, summarizing } = inputs;
  const unit = units[position]!;
  if (kept[position]) {
    const reason = marks.reasons[position] ?? 'selected within budget';
    return { disposition: marks.pinned[position] ? 'pinned' : 'keep', reason };
  }
  if (unit.excluded) return { disposition: 'drop', reason: marks.reasons[position] ?? 'excluded' };
  const reason = droppedForOrder.has(position)
    ? 'removed: the first chat message sent must be a user message'
    : 'over budget';
  return { disposition: summarizing ? 'summarize' : 'drop', reason };
}

/** One plan entry per input message, in input order. */
export function buildEntries(inputs: EntryInputs): PlanEntry[] {
  const { conversation, tokens, weights } = inputs;
  const fates = inputs.units.map((unit) => unitFate(unit.position, inputs));
  return conversation.nodes.map((node) => {
    const orphan = node.isSystem ? undefined : conversation.orphans.get(node.index);
    const fate = node.isSystem
      ? SYSTEM_FATE
      : orphan !== undefined
        ? { disposition: 'drop' as const, reason: orphan }
        : fates[conversation.unitOf[node.index]!]!;
    return {
      index: node.index,
      id: node.id,
      role: node.role,
      disposition: fate.disposition,
      weight: weights[node.index]!,
      tokens: tokens[node.index]!,
      reason: fate.reason,
    };
  });
}
