import type { SelectionUnit } from '../selection/selection-algorithm.js';

/** Result of the first-user repair. */
export interface FirstUserRepair {
  /** Tokens added (positive) or removed (negative). */
  delta: number;
  /** Positions removed because they would have led the conversation. */
  dropped: number[];
  /** Positions removed to make room for a question. */
  freed: number[];
}

/** Drops optional kept units weighing less than `below` (lowest weight, oldest first) until `needed` tokens are free; false if impossible. */
function freeRoom(
  units: readonly SelectionUnit[],
  kept: boolean[],
  needed: number,
  freed: number[],
  below = Infinity,
): boolean {
  const optional = units
    .filter((unit) => kept[unit.position] && !unit.mandatory && unit.weight < below)
    .sort((a, b) => a.weight - b.weight || a.position - b.position);
  if (optional.reduce((sum, unit) => sum + unit.tokens, 0) < needed) return false;
  let released = 0;
  for (const unit of optional) {
    if (released >= needed) break;
    kept[unit.position] = false;
    freed.push(unit.position);
    released += unit.tokens;
  }
  return true;
}

/**
 * The first chat message sent must be a user message. While the first kept unit is not
 * a user unit: its question (the nearest earlier user unit) is added if it fits in `room`;
 * otherwise room is first made by dropping optional units (any of them for a mandatory unit,
 * only units weighing less for an optional one, so the best-scoring reply is not lost to
 * filler); failing that, the leading unit is dropped, even a mandatory one.
 */
export function enforceFirstUser(units: readonly SelectionUnit[], kept: boolean[], room: number): FirstUserRepair {
  const repair: FirstUserRepair = { delta: 0, dropped: [], freed: [] };
  let left = room;
  let cursor = 0;
  for (;;) {
    // Units before the cursor are not kept (only a question before `first` can become kept, and then it leads).
    while (cursor < units.length && !kept[cursor]) cursor += 1;
    const first = units[cursor];
    if (!first || first.role === 'user') return repair;
    let question: SelectionUnit | undefined;
    for (let position = first.position - 1; position >= 0 && !question; position -= 1) {
      const unit = units[position]!;
      if (unit.role === 'user' && !unit.excluded) question = unit;
    }
    if (question && question.tokens > left) {
      const before = repair.freed.length;
      if (freeRoom(units, kept, question.tokens - left, repair.freed, first.mandatory ? Infinity : first.weight)) {
        for (const position of repair.freed.slice(before)) {
          left += units[position]!.tokens;
          repair.delta -= units[position]!.tokens;
        }
      }
    }
    if (question && question.tokens <= left) {
      kept[question.position] = true;
      cursor = question.position;
      left -= question.tokens;
      repair.delta += question.tokens;
      continue;
    }
    kept[first.position] = false;
    repair.dropped.push(first.position);
    left += first.tokens;
    repair.delta -= first.tokens;
  }
}
