import type { SelectionUnit } from '../selection/selection-algorithm.js';

/**
 * The first chat message sent must be a user message (C2). If the first kept unit is not a
 * user unit, the nearest earlier user unit is added when it fits in `room`; otherwise leading
 * non-user units are dropped, even mandatory ones. Returns the tokens added (negative when dropped)
 * and the positions dropped.
 */
export function enforceFirstUser(units: readonly SelectionUnit[], kept: boolean[], room: number): { delta: number; dropped: number[] } {
  const first = units.findIndex((unit) => kept[unit.position]);
  if (first < 0 || units[first]!.role === 'user') return { delta: 0, dropped: [] };
  for (let position = first - 1; position >= 0; position -= 1) {
    const unit = units[position]!;
    if (unit.role !== 'user' || unit.excluded) continue;
    const between = units.slice(position + 1, first);
    if (unit.tokens <= room && between.every((other) => !kept[other.position])) {
      kept[position] = true;
      return { delta: unit.tokens, dropped: [] };
    }
    break;
  }
  const dropped: number[] = [];
  let delta = 0;
  for (const unit of units) {
    if (!kept[unit.position]) continue;
    if (unit.role === 'user') break;
    kept[unit.position] = false;
    dropped.push(unit.position);
    delta -= unit.tokens;
  }
  return { delta, dropped };
}
