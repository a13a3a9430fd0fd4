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

type Fate = Pick<PlanEntry, 'disposition' | 'reason' | 'cause'>;

const SYSTEM_FATE: Fate = {
  disposition: 'keep',
  reason: 'system message (always kept)',
  cause: 'system',
};

/** Disposition and reason of one chat unit. */
function unitFate(position: number, inputs: EntryInputs): Fate {
  const { units, kept, marks, droppedForOrder, summarizing } = inputs;
  const unit = units[position]!;
  if (kept[position]) {
    const reason = marks.reasons[position] ?? 'selected within budget';
    return {
      disposition: marks.pinned[position] ? 'pinned' : 'keep',
      reason,
      cause: marks.causes[position] ?? 'budget',
    };
  }
  if (unit.excluded)
    return {
      disposition: 'drop',
      reason: marks.reasons[position] ?? 'excluded',
      cause: marks.causes[position] ?? 'flag',
    };
  const disposition = summarizing ? 'summarize' : 'drop';
  return droppedForOrder.has(position)
    ? { disposition, reason: 'removed: the first chat message sent must be a user message', cause: 'first-user' }
    : { disposition, reason: 'over budget', cause: 'budget' };
}

/** The fate of a message the conversation cannot send validly (an orphan tool call or result, a non-object). */
function orphanFate(reason: string): Fate {
  return { disposition: 'drop', reason, cause: reason === 'not a message object' ? 'invalid' : 'tool-pair' };
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
        ? orphanFate(orphan)
        : fates[conversation.unitOf[node.index]!]!;
    return {
      index: node.index,
      id: node.id,
      role: node.role,
      disposition: fate.disposition,
      weight: weights[node.index]!,
      tokens: tokens[node.index]!,
      reason: fate.reason,
      cause: fate.cause,
    };
  });
}
