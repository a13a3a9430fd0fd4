import { candidates, mandatoryOnly, type SelectionAlgorithm, type SelectionUnit } from './selection-algorithm.js';
import { validPrefix } from './valid-prefix.js';

/** Drops the oldest kept optional units until the optional total is ≤ `room`; returns the new total. */
function trimOldest(open: readonly SelectionUnit[], kept: boolean[], total: number, room: number): number {
  let used = total;
  for (const unit of open) {
    if (used <= room) break;
    if (!kept[unit.position]) continue;
    kept[unit.position] = false;
    used -= unit.tokens;
  }
  return used;
}

/**
 * Prefix-cache optimized: replays last time's choices for the still-valid prefix of
 * `previousSequence` (so the provider's prompt cache keeps hitting) and keeps every newer
 * message. When that no longer fits, it cuts the oldest history in one block down to
 * `trimTo` × the budget (hysteresis), so the kept prefix then stays stable for many turns.
 */
export const prefixCacheSelection: SelectionAlgorithm = {
  name: 'prefix_cache',
  select({ units, available, limit, committed, options, ids, previousSequence }) {
    const kept = mandatoryOnly(units);
    const open = candidates(units);
    const notes: string[] = [];
    const prefix = validPrefix(previousSequence ?? [], ids);
    const sent = new Set((previousSequence ?? []).slice(0, prefix.length));
    let total = 0;
    for (const unit of open) {
      const replayed = unit.members[0]! > prefix.lastIndex || unit.members.some((member) => sent.has(ids[member]!));
      if (replayed) {
        kept[unit.position] = true;
        total += unit.tokens;
      }
    }
    if (prefix.length > 0) notes.push(`prefix_cache: reused ${prefix.length} of ${previousSequence?.length ?? 0} previously sent messages`);
    if (total > available) {
      const room = Math.min(available, Math.max(0, Math.floor(options.trimTo * limit) - committed));
      trimOldest(open, kept, total, room);
      notes.push(`prefix_cache: over budget, trimmed oldest history to ${Math.round(options.trimTo * 100)}% of the budget`);
    }
    return { kept, notes, prefixReused: prefix.length };
  },
};
