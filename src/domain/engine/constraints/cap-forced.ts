import type { SelectionUnit } from '../selection/selection-algorithm.js';
import type { EngineOptions, PlanCapped } from '../types.js';
import type { ForcedBy, UnitMarks } from './mark-units.js';

/** The order forced units are let in: pins, then keep tags, then the recent messages. */
const PRIORITY: readonly ForcedBy[] = ['pinned', 'tag', 'recent'];

/**
 * `capForced`: makes the units a user forced in (`marks.forced`) mandatory while they fit the hard `limit` beside
 * what is sent whatever the budget (`fixed`: system messages and priming; the mandatory units): pins first, then
 * keep tags, then the recent messages, each newest first. The recent messages are the last ones: past the first
 * that does not fit, none is forced in (so they stay the newest). A unit held back becomes an ordinary candidate
 * (or stays out of `!context=N`). Mutates `units` and `marks`; returns what was held back, undefined when all fit.
 */
export function capForcedUnits(
  units: SelectionUnit[],
  marks: UnitMarks,
  limit: number,
  fixed: number,
  options: EngineOptions,
): PlanCapped | undefined {
  let free = limit - fixed;
  for (const unit of units) if (unit.mandatory) free -= unit.tokens;
  const held = { pinned: 0, tag: 0, recent: 0 };
  let recentStopped = false;
  for (const by of PRIORITY) {
    for (let position = units.length - 1; position >= 0; position -= 1) {
      if (marks.forced[position] !== by) continue;
      const unit = units[position]!;
      marks.forced[position] = undefined;
      if (unit.tokens <= free && !(by === 'recent' && recentStopped)) {
        unit.mandatory = true;
        marks.mandatory[position] = true;
        free -= unit.tokens;
        continue;
      }
      if (by === 'recent') recentStopped = true;
      held[by] += 1;
      marks.pinned[position] = false;
      if (unit.members[0]! < marks.contextStart) {
        unit.excluded = true;
        marks.excluded[position] = true;
        marks.reasons[position] = `outside !context=${options.contextTurns}`;
        marks.causes[position] = 'flag';
      } else {
        marks.reasons[position] = undefined;
        marks.causes[position] = undefined;
      }
    }
  }
  if (held.pinned + held.tag + held.recent === 0) return undefined;
  const capped: PlanCapped = { limitTokens: limit, pinned: held.pinned, tagged: held.tag };
  if (held.recent > 0)
    capped.recent = { asked: options.recent, kept: recentKept(units, marks.mandatory, options.recent) };
  return capped;
}

/** How many of the last `asked` messages `kept` holds without a gap (the run of recent messages that was sent). */
export function recentKept(units: readonly SelectionUnit[], kept: readonly boolean[], asked: number): number {
  let count = 0;
  for (let position = units.length - 1; position >= 0 && kept[position]; position -= 1)
    count += units[position]!.members.length;
  return Math.min(count, asked);
}
