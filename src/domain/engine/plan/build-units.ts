import type { UnitMarks } from '../constraints/mark-units.js';
import type { Conversation } from '../conversation/chat-node.js';
import type { SelectionUnit } from '../selection/selection-algorithm.js';

/** Selection units with summed tokens, max member weight and the constraint marks. */
export function buildUnits(
  conversation: Conversation,
  tokens: ArrayLike<number>,
  weights: ArrayLike<number>,
  marks: UnitMarks,
): SelectionUnit[] {
  return conversation.units.map((unit) => {
    let unitTokens = 0;
    let weight = 0;
    for (const member of unit.members) {
      unitTokens += tokens[member]!;
      weight = Math.max(weight, weights[member]!);
    }
    return {
      position: unit.position,
      members: unit.members,
      role: unit.role,
      tokens: unitTokens,
      weight,
      mandatory: marks.mandatory[unit.position]!,
      excluded: marks.excluded[unit.position]!,
    };
  });
}
