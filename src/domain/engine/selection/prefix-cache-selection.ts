import { fillByWeight } from './fill-by-weight.js';
import { recencyWeights } from './recency-weights.js';
import { candidates, mandatoryOnly, type SelectionAlgorithm, type SelectionUnit } from './selection-algorithm.js';
import { validPrefix } from './valid-prefix.js';

/** At most this share of the budget is recalled behind the prefix (0.1 kept prefix reuse > 80% at 4k tokens in bench:cache). */
export const PREFIX_RECALL_SHARE = 0.1;

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

/** Drops leading kept units while they are not user units and `droppable`; returns the tokens freed. */
function dropLeadingNonUser(
  units: readonly SelectionUnit[],
  kept: boolean[],
  droppable: (unit: SelectionUnit) => boolean,
): number {
  let freed = 0;
  for (const unit of units) {
    if (!kept[unit.position]) continue;
    if (unit.role === 'user' || !droppable(unit)) break;
    kept[unit.position] = false;
    freed += unit.tokens;
  }
  return freed;
}

/**
 * Recall behind the prefix: the room left after the chronological part goes to the
 * best-scoring older messages (by weight, recency-boosted). They are sent after the cached
 * prefix, before the current turn (`Selection.recalled`), so the prefix stays byte-identical.
 * Only messages scoring above the lowest weight are recalled (filler is not worth a reorder);
 * with equal weights nothing is. Returns the recalled positions.
 */
function recall(
  units: readonly SelectionUnit[],
  open: readonly SelectionUnit[],
  kept: boolean[],
  room: number,
  recencyFactor: number,
): number[] {
  const floor = open.reduce((low, unit) => Math.min(low, unit.weight), Infinity);
  const relevant = open.filter((unit) => !kept[unit.position] && unit.weight > floor);
  if (room <= 0 || relevant.length === 0) return [];
  const before = kept.slice();
  fillByWeight(relevant, recencyWeights(units, recencyFactor), room, kept);
  const recalled = new Set(
    open.filter((unit) => kept[unit.position] && !before[unit.position]).map((unit) => unit.position),
  );
  // The oldest kept message may now be a recalled one: it must be a user message too.
  dropLeadingNonUser(units, kept, (unit) => recalled.has(unit.position));
  return [...recalled].filter((position) => kept[position]);
}

/**
 * Prefix-cache optimized: replays last time's choices for the still-valid prefix of
 * `previousSequence` (so the provider's prompt cache keeps hitting) and keeps every newer
 * message. When that no longer fits, it cuts the oldest history in one block down to
 * `trimTo` × the budget (hysteresis), so the kept prefix then stays stable for many turns.
 * The room left is filled with the best-scoring older messages, sent after the prefix.
 */
export const prefixCacheSelection: SelectionAlgorithm = {
  name: 'prefix_cache',
  cachePrefix: true,
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
    if (prefix.length > 0)
      notes.push(`prefix_cache: reused ${prefix.length} of ${previousSequence?.length ?? 0} previously sent messages`);
    if (total > available) {
      const room = Math.min(available, Math.max(0, Math.floor(options.trimTo * limit) - committed));
      total = trimOldest(open, kept, total, room);
      notes.push(
        `prefix_cache: over budget, trimmed oldest history to ${Math.round(options.trimTo * 100)}% of the budget`,
      );
    }
    // The prefix is sent first, so it must start with a user message itself.
    total -= dropLeadingNonUser(units, kept, (unit) => !unit.mandatory);
    const recalled = recall(
      units,
      open,
      kept,
      Math.min(available - total, Math.floor(PREFIX_RECALL_SHARE * limit)),
      options.recencyFactor,
    );
    if (recalled.length > 0)
      notes.push(`prefix_cache: ${recalled.length} relevant older message(s) sent after the cached prefix`);
    return { kept, notes, prefixReused: prefix.length, recalled };
  },
};
