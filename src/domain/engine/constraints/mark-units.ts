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
  /**
   * With `capForced`: units a user forced in (`pinned`, `tag`, or `recent` past the guaranteed ones), not mandatory
   * yet: `capForcedUnits` makes those that fit the hard limit mandatory.
   */
  forced: (ForcedBy | undefined)[];
  /** First input index inside `!context=N` (0 without it). */
  contextStart: number;
}

/** What forced a unit in. */
export type ForcedBy = 'pinned' | 'tag' | 'recent';

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
 * outside `!context=N` (the last N turns), which are never selected unless pinned. With
 * `capForced`, pins, tags and the recent messages past max(guaranteedRecent, minChatMessages)
 * are marked `forced` instead of mandatory.
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
    forced: new Array(count).fill(undefined),
    contextStart: 0,
  };
  const capped = options.capForced === true;
  const force = (position: number, reason: string, cause: ForcedBy) => {
    if (result.mandatory[position] || result.forced[position] === 'pinned') return;
    result.forced[position] = cause;
    result.reasons[position] = reason;
    result.causes[position] = cause;
  };
  const set = (position: number, reason: string, cause: EntryCause) => {
    // The first reason stays (a pin on the current message is kept as pinned).
    if (!result.mandatory[position] && !result.forced[position]) {
      result.reasons[position] = reason;
      result.causes[position] = cause;
    }
    result.mandatory[position] = true;
    result.forced[position] = undefined;
  };
  const tags = new Set(keepTags);
  // A Map, not `marks[id]`: looking up thousands of fresh id strings on an object is slow.
  const byId = new Map(Object.entries(marks));
  for (const unit of byId.size > 0 ? conversation.units : []) {
    for (const member of unit.members) {
      const mark = byId.get(conversation.nodes[member]!.id);
      const tag = mark?.tags?.find((name) => tags.has(name));
      if (mark?.pinned || tag !== undefined) {
        const reason = mark?.pinned ? 'pinned' : `kept by tag ${tag}`;
        const cause = mark?.pinned ? 'pinned' : 'tag';
        if (capped) force(unit.position, reason, cause);
        else set(unit.position, reason, cause);
        result.pinned[unit.position] = true;
      }
    }
  }
  const start =
    options.contextTurns !== undefined && options.contextTurns > 0
      ? contextStart(conversation, Math.floor(options.contextTurns))
      : 0;
  result.contextStart = start;
  for (const unit of conversation.units) {
    if (unit.members[0]! < start && !result.mandatory[unit.position] && !result.forced[unit.position]) {
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
  // Capped, the recent messages past these are only forced in: kept while they fit the hard limit.
  let guaranteed = capped ? Math.max(options.guaranteedRecent ?? options.recent, options.minChatMessages) : recent;
  for (let position = count - 1; position >= 0 && recent > 0; position -= 1) {
    if (result.excluded[position]) break;
    if (guaranteed > 0 || result.mandatory[position]) set(position, 'recent', 'recent');
    else if (!result.forced[position]) force(position, 'recent', 'recent');
    const members = conversation.units[position]!.members.length;
    recent -= members;
    guaranteed -= members;
  }
  return result;
}
