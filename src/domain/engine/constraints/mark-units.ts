import type { Conversation } from '../conversation/chat-node.js';
import type { EngineOptions, EntryCause, MessageMark } from '../types.js';

/** Why a unit is mandatory or excluded, by unit position. */
export interface UnitMarks {
  mandatory: boolean[];
  excluded: boolean[];
  /** Reason per unit position for mandatory/excluded units. */
  reasons: (string | undefined)[];
  /** The same reasons as codes. */
  causes: (EntryCause | undefined)[];
  /** Units kept because pinned or tagged (disposition `pinned`). */
  pinned: boolean[];
}

/** Start index of the last `turns` turns (a turn starts at a user message); 0 when fewer. */
function contextStart(conversation: Conversation, turns: number): number {
  let seen = 0;
  for (let index = conversation.nodes.length - 1; index >= 0; index -= 1) {
    if (conversation.nodes[index]!.role === 'user' && conversation.unitOf[index]! >= 0) {
      seen += 1;
      if (seen === turns) return index;
    }
  }
  return 0;
}

/**
 * Marks units that must be kept — the current turn (last user message onward), the last
 * max(recent, minChatMessages) chat messages, pinned and keep-tagged messages — and those
 * outside `!context=N` (the last N turns), which are never selected unless pinned.
 */
export function markUnits(
  conversation: Conversation,
  options: EngineOptions,
  marks: Record<string, MessageMark>,
  keepTags: readonly string[],
): UnitMarks {
  const count = conversation.units.length;
  const result: UnitMarks = {
    mandatory: new Array(count).fill(false),
    excluded: new Array(count).fill(false),
    reasons: new Array(count).fill(undefined),
    causes: new Array(count).fill(undefined),
    pinned: new Array(count).fill(false),
  };
  const set = (position: number, reason: string, cause: EntryCause) => {
    if (!result.mandatory[position]) {
      result.reasons[position] = reason;
      result.causes[position] = cause;
    }
    result.mandatory[position] = true;
  };
  const tags = new Set(keepTags);
  // A Map, not `marks[id]`: looking up thousands of fresh id strings on an object is slow.
  const byId = new Map(Object.entries(marks));
  for (const unit of byId.size > 0 ? conversation.units : []) {
    for (const member of unit.members) {
      const mark = byId.get(conversation.nodes[member]!.id);
      const tag = mark?.tags?.find((name) => tags.has(name));
      if (mark?.pinned || tag !== undefined) {
        set(unit.position, mark?.pinned ? 'pinned' : `kept by tag ${tag}`, mark?.pinned ? 'pinned' : 'tag');
        result.pinned[unit.position] = true;
      }
    }
  }
  const start =
    options.contextTurns !== undefined && options.contextTurns > 0
      ? contextStart(conversation, Math.floor(options.contextTurns))
      : 0;
  for (const unit of conversation.units) {
    if (unit.members[0]! < start && !result.mandatory[unit.position]) {
      result.excluded[unit.position] = true;
      result.reasons[unit.position] = `outside !context=${options.contextTurns}`;
      result.causes[unit.position] = 'flag';
    }
  }
  if (conversation.lastUserIndex >= 0) {
    const lastUserUnit = conversation.unitOf[conversation.lastUserIndex]!;
    set(lastUserUnit, 'last user message', 'current');
    for (let position = lastUserUnit + 1; position < count; position += 1) set(position, 'current turn', 'current');
  }
  let recent = Math.max(options.recent, options.minChatMessages);
  for (let position = count - 1; position >= 0 && recent > 0; position -= 1) {
    if (result.excluded[position]) break;
    set(position, 'recent', 'recent');
    recent -= conversation.units[position]!.members.length;
  }
  return result;
}
