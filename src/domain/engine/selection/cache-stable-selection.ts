import { fillByWeight } from './fill-by-weight.js';
import { recencyWeights } from './recency-weights.js';
import { candidates, mandatoryOnly, type SelectionAlgorithm, type SelectionUnit } from './selection-algorithm.js';
import { validPrefix } from './valid-prefix.js';

/*
 * The three shares below are one point of the recall / prefix-reuse frontier measured by
 * `npm run bench:cache` (LoCoMo dev replayed as chats; see docs/benchmarks.md): a larger fresh
 * share buys recall and costs reuse; a higher anchor and low-water mark buy reuse but make the
 * cuts small and frequent (0.8 / 0.9 cut 4 requests in 5 at 2k); 0.5 / 0.6 cut about one in
 * four at 2k and one in seven at 4k, each freeing 40 % of the core's room.
 */
/** Share of the history room always left to the messages picked for the current question. */
export const FRESH_SHARE = 0.2;
/** When the core outgrows its room, it is cut down to this share of it. */
export const CORE_LOW_WATER = 0.6;
/** The core's leading part up to this share of its room stays through a cut (it stays cached); the cut starts after it. */
export const ANCHOR_SHARE = 0.5;
/**
 * The anchor goes too once the history cut out behind it (between it and the rest of the core) exceeds this many
 * times the core's room, so it is never more than a few budgets older than the rest: at 4 it costs 2.5 points of
 * prefix reuse at 2k and 1.2 at 4k, and gives back a point of recall at 2k.
 */
export const ANCHOR_MAX_GAP = 4;
/**
 * A message outside the core is picked for the question only when its weight clears this point between the lowest
 * and the highest weight outside the core (0.5 = the midpoint): the fresh share is as large as the question needs,
 * not the whole room the core leaves, so most of the prompt is the cached core. Equal weights pick nothing.
 */
export const FRESH_THRESHOLD = 0.5;

/** The units outside the core whose weight clears `FRESH_THRESHOLD` of the way from the lowest to the highest. */
function relevantOutside(open: readonly SelectionUnit[], kept: readonly boolean[]): SelectionUnit[] {
  const outside = open.filter((unit) => !kept[unit.position]);
  let low = Infinity;
  let high = -Infinity;
  for (const unit of outside) {
    low = Math.min(low, unit.weight);
    high = Math.max(high, unit.weight);
  }
  const threshold = low + FRESH_THRESHOLD * (high - low);
  return outside.filter((unit) => unit.weight > low && unit.weight >= threshold);
}

/** Positions of the core: carried from the previous prompt (its still-valid prefix) plus every newer unit. */
function carriedCore(
  open: readonly SelectionUnit[],
  ids: readonly string[],
  previousSequence: readonly string[] | undefined,
): { core: SelectionUnit[]; reused: number } {
  const prefix = validPrefix(previousSequence ?? [], ids);
  if (prefix.length === 0) return { core: [], reused: 0 };
  const sent = new Set((previousSequence ?? []).slice(0, prefix.length));
  const core = open.filter(
    (unit) => unit.members[0]! > prefix.lastIndex || unit.members.some((member) => sent.has(ids[member]!)),
  );
  return { core, reused: prefix.length };
}

/** The newest units, newest first, while they fit in `room`, cut to start at a user unit; ascending. */
function newestBlock(open: readonly SelectionUnit[], room: number): SelectionUnit[] {
  const block: SelectionUnit[] = [];
  let used = 0;
  for (let at = open.length - 1; at >= 0; at -= 1) {
    const unit = open[at]!;
    if (used + unit.tokens > room) break;
    block.unshift(unit);
    used += unit.tokens;
  }
  while (block.length > 0 && block[0]!.role !== 'user') block.shift();
  return block;
}

/**
 * Cuts one block out of the core until it is ≤ `room`: the oldest units after the anchor (the
 * leading units within `anchor` tokens, which stay cached), ending before a user unit so the
 * part after the cut starts with a question. When the history left out between the anchor and
 * the rest would exceed `maxGap` tokens, the anchor is cut too.
 */
function evictBlock(
  core: SelectionUnit[],
  open: readonly SelectionUnit[],
  room: number,
  anchor: number,
  maxGap: number,
): SelectionUnit[] {
  let total = core.reduce((sum, unit) => sum + unit.tokens, 0);
  let head = 0;
  let headTokens = 0;
  while (head < core.length && headTokens + core[head]!.tokens <= anchor) headTokens += core[head++]!.tokens;
  // The anchor ends after a reply (or is empty), so the cut part never starts a pair it splits.
  while (head > 0 && core[head - 1]!.role === 'user') headTokens -= core[--head]!.tokens;
  let from = head;
  while (from < core.length && (total > room || core[from]!.role !== 'user')) {
    total -= core[from]!.tokens;
    from += 1;
  }
  if (head === 0 || from >= core.length) return core.slice(from);
  const anchorEnd = core[head - 1]!.position;
  const restStart = core[from]!.position;
  let gap = 0;
  for (const unit of open) if (unit.position > anchorEnd && unit.position < restStart) gap += unit.tokens;
  return gap > maxGap ? core.slice(from) : [...core.slice(0, head), ...core.slice(from)];
}

/** Drops the oldest fresh picks while they would lead the chat in input order without being user units. */
function dropLeadingFresh(units: readonly SelectionUnit[], kept: boolean[], fresh: ReadonlySet<number>): void {
  for (const unit of units) {
    if (!kept[unit.position]) continue;
    if (unit.role === 'user' || !fresh.has(unit.position)) return;
    kept[unit.position] = false;
  }
}

/**
 * Cache-stable: a chronological core carried over from the chat's previous prompt (its still-valid
 * prefix, so the provider's prompt cache keeps hitting), plus a fresh share picked for the current
 * question and sent after the core, before the current turn. The core takes every new turn; when it
 * outgrows its room (the history room minus the fresh share) one block is cut from it down to the
 * low-water mark: the oldest messages after its anchor (its leading part, which stays and stays
 * cached; it goes too once it has fallen more than `ANCHOR_MAX_GAP` rooms behind). The fresh share gets at most the room the core leaves, filled by weight (recency-boosted)
 * from the messages outside the core that clear `FRESH_THRESHOLD`. Without a usable previous prompt the core starts as the
 * newest messages within the low-water mark.
 */
export const cacheStableSelection: SelectionAlgorithm = {
  name: 'cache_stable',
  cachePrefix: true,
  select({ units, available, options, ids, previousSequence, ranking }) {
    const kept = mandatoryOnly(units);
    const open = candidates(units);
    const notes: string[] = [];
    const room = Math.max(0, Math.floor(available * (1 - FRESH_SHARE)));
    const carried = carriedCore(open, ids, previousSequence);
    if (carried.reused > 0)
      notes.push(`cache_stable: reused ${carried.reused} of ${previousSequence?.length ?? 0} previously sent messages`);
    // Everything fits: all of it, in order (the whole history is the core).
    if (open.reduce((sum, unit) => sum + unit.tokens, 0) <= available) {
      for (const unit of open) kept[unit.position] = true;
      return { kept, notes, prefixReused: carried.reused, recalled: [] };
    }
    let core = carried.core;
    const coreTokens = () => core.reduce((sum, unit) => sum + unit.tokens, 0);
    if (carried.reused === 0) core = newestBlock(open, Math.floor(room * CORE_LOW_WATER));
    else if (coreTokens() > room) {
      core = evictBlock(
        core,
        open,
        Math.floor(room * CORE_LOW_WATER),
        Math.floor(room * ANCHOR_SHARE),
        room * ANCHOR_MAX_GAP,
      );
      notes.push(
        `cache_stable: the stable core outgrew its room; the oldest block after its anchor cut (down to ${Math.round(CORE_LOW_WATER * 100)}% of it)`,
      );
    }
    for (const unit of core) kept[unit.position] = true;
    const used = coreTokens();
    const fresh = relevantOutside(open, kept);
    const before = kept.slice();
    fillByWeight(fresh, recencyWeights(units, options.recencyFactor), Math.max(0, available - used), kept, ranking);
    const picked = new Set(
      fresh.filter((unit) => kept[unit.position] && !before[unit.position]).map((unit) => unit.position),
    );
    dropLeadingFresh(units, kept, picked);
    const recalled = [...picked].filter((position) => kept[position]);
    return { kept, notes, prefixReused: carried.reused, recalled };
  },
};
