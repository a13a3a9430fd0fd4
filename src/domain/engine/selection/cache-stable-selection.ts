import { fillByWeight } from './fill-by-weight.js';
import { recencyWeights } from './recency-weights.js';
import {
  candidates,
  type FillRanking,
  mandatoryOnly,
  type SelectionAlgorithm,
  type SelectionUnit,
} from './selection-algorithm.js';
import { validPrefix } from './valid-prefix.js';

/*
 * The constants below are one point of the recall / prefix-reuse frontier, tuned with `npm run bench:cache` on the
 * LoCoMo dev chats and checked on chats it was not tuned on (`npm run bench:cache:assistant`, LongMemEval S dev
 * replayed exchange by exchange; see docs/benchmarks.md). The core is only appended to: a prefix is reused only up to
 * the first message that differs from the previous prompt, so a core cut from its old end breaks it at the cut, which
 * in chats of long answers (one exchange a fifth of a 2k budget) happened at 4 requests in 10 and kept only its head.
 * A full core instead stays as it is (the newer history waits outside it, reachable by the fresh share), and starts
 * again only once the history left out behind it exceeds `CORE_MAX_GAP` times its room. A core that starts (or
 * starts again) is seeded with what the current question needs, not with the newest messages: those are sent anyway
 * (the recent messages, then every new message joins the core while it fits), and on chats of long answers the
 * recent messages alone are a third of a 2k prompt, so a core of the newest messages held little that a question needed.
 * What follows the core decides the rest of the reuse: the recent messages change at every request, so once the core
 * cannot take them, a fresh share sent after them is never reused (sent there always, a full core is all that repeats:
 * 37 % of the prompt on the assistant chats at 2k). The fresh share's messages that the question picks again are sent
 * right after the core, in the order they were sent, so the prompt repeats through them while the question stays on
 * its subject (`STICKY_SLACK`), when that repeats more than the recent messages would.
 */
/** Share of the history room always left to the messages picked for the current question. */
export const FRESH_SHARE = 0.3;
/** A core that starts (or starts again) takes at most this share of its room, so new messages can join it. */
export const CORE_LOW_WATER = 0.6;
/**
 * A full core starts again once the history left out after it exceeds this many times its room, so it is never more
 * than a few budgets older than the chat (LoCoMo dev, recall / prefix reuse at 2k and 4k: 2 gives 89.1 / 94.1 % with
 * 60.0 / 66.9 %; 1 gives 90.5 / 94.9 % with 57.1 / 61.4 %; 4 gives 88.6 / 94.1 % with 63.6 / 68.2 %).
 */
export const CORE_MAX_GAP = 2;
/**
 * A message outside the core is picked for the question only when its weight clears this point between the lowest
 * and the highest weight outside the core (0 = fill the room): the fresh share is as large as the question needs,
 * not the whole room the core leaves, so most of the prompt is the cached core. Equal weights pick nothing. (0.4 gives
 * LoCoMo dev about the same recall with up to 3 points more reuse, but costs 2 points of recall at 4k on the assistant
 * chats.) A core that starts is seeded with the units clearing the same point.
 */
export const FRESH_THRESHOLD = 0.3;
/**
 * A message of the fresh share that the previous prompt sent is sent again, in its place right after the core,
 * while it is among the picks for this many times the fresh share's room: a hysteresis, so a message near the edge
 * of the picks does not go and come back as the history grows. (Recall / prefix reuse at 2k on LongMemEval S dev and
 * LoCoMo dev: 1 gives 94.4 / 58.6 % and 87.7 / 60.3 %, 1.5 gives 94.5 / 60.1 % and 89.1 / 60.0 %, 2.5 gives 94.9 / 61.0 %
 * and 88.1 / 59.6 %.)
 */
export const STICKY_SLACK = 1.5;

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

/**
 * Positions of the core: carried from the previous prompt (its still-valid prefix, in input order) plus every unit
 * newer than anything that prompt sent (the turns since).
 */
function carriedCore(
  open: readonly SelectionUnit[],
  ids: readonly string[],
  previousSequence: readonly string[] | undefined,
): { core: SelectionUnit[]; reused: number } {
  const previous = previousSequence ?? [];
  const prefix = validPrefix(previous, ids);
  if (prefix.length === 0) return { core: [], reused: 0 };
  const sent = new Set(previous.slice(0, prefix.length));
  const at = new Map(ids.map((id, index) => [id, index] as const));
  let newest = prefix.lastIndex;
  for (const id of previous) newest = Math.max(newest, at.get(id) ?? -1);
  const core = open.filter(
    (unit) => unit.members[0]! > newest || unit.members.some((member) => sent.has(ids[member]!)),
  );
  return { core, reused: prefix.length };
}

/**
 * The messages of the fresh share (`fresh`, none of them kept yet) that the previous prompt sent and the question
 * still picks (among the picks of `STICKY_SLACK` × `room`), in the order the previous prompt sent them, while they
 * fit in `room` (stopping at the first that does not: the prompt cache stops there anyway).
 */
function stickyFresh(
  fresh: readonly SelectionUnit[],
  kept: readonly boolean[],
  room: number,
  previous: { ids: readonly string[]; sequence: readonly string[] },
  fill: { weights: ArrayLike<number>; ranking: FillRanking | undefined },
): SelectionUnit[] {
  if (previous.sequence.length === 0 || room <= 0) return [];
  const wide = kept.slice();
  fillByWeight(fresh, fill.weights, Math.floor(room * STICKY_SLACK), wide, fill.ranking);
  const sentAt = new Map(previous.sequence.map((id, index) => [id, index] as const));
  const at = (unit: SelectionUnit) => sentAt.get(previous.ids[unit.members[0]!]!);
  const again = fresh.filter((unit) => wide[unit.position] && at(unit) !== undefined).sort((a, b) => at(a)! - at(b)!);
  const sticky: SelectionUnit[] = [];
  let used = 0;
  for (const unit of again) {
    if (used + unit.tokens > room) break;
    sticky.push(unit);
    used += unit.tokens;
  }
  return sticky;
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
 * A core over its `room` keeps its leading part within it (not ending on a question whose reply it cuts off), so the prompt still opens with
 * what it opened with last time: the newest carried units stay outside it (the fresh share may still pick them).
 * A leading part under the low-water mark (held back by a unit too long for the core, in chats of long answers one
 * answer) still takes the newer units that fit, in order, up to `lowWater`, skipping the long ones: otherwise the
 * history left out behind its lead passes `maxGap` at once and the core restarts at every request, rebuilding the
 * same small lead (LongMemEval S dev at 2k: 897 of 1,636 restarts were that loop). When the history left out after
 * the core exceeds `maxGap` tokens, or nothing of it fits, the core starts again (`restartedCore`). Returns the core
 * and whether it started again.
 */
function fullCore(
  core: readonly SelectionUnit[],
  open: readonly SelectionUnit[],
  room: number,
  lowWater: number,
  maxGap: number,
  seed: () => SelectionUnit[],
): { core: SelectionUnit[]; restarted: boolean } {
  let used = 0;
  let end = 0;
  while (end < core.length && used + core[end]!.tokens <= room) used += core[end++]!.tokens;
  // Not ending on a question whose answer (the next unit) is cut off; a question picked on its own stays.
  while (
    end > 0 &&
    end < core.length &&
    core[end - 1]!.role === 'user' &&
    core[end]!.position === core[end - 1]!.position + 1
  )
    used -= core[--end]!.tokens;
  const held = core.slice(0, end);
  // A core held back to a small lead by a message too long for it: the newer units that fit still join it, up to the
  // low-water mark (the room a restarted core takes); the long one waits outside (the fresh share may pick it).
  if (end > 0)
    for (const unit of core.slice(end))
      if (used + unit.tokens <= lowWater) {
        held.push(unit);
        used += unit.tokens;
      }
  const last = end > 0 ? held[held.length - 1]!.position : Infinity;
  let gap = 0;
  for (const unit of open) if (unit.position > last) gap += unit.tokens;
  if (end === 0 || gap > maxGap) return { core: restartedCore(core, seed()), restarted: true };
  return { core: held, restarted: false };
}

/**
 * The core started again: the new `seeded` core, but opening with the longest leading run of the old core whose
 * units are all in it (the prompt cache still hits up to the end of that run), followed by the seeded units newer
 * than the run. Every unit is one of `seeded`, so it fits the same room.
 */
export function restartedCore(old: readonly SelectionUnit[], seeded: readonly SelectionUnit[]): SelectionUnit[] {
  const inSeed = new Set(seeded.map((unit) => unit.position));
  let run = 0;
  if (old[0]?.role === 'user') while (run < old.length && inSeed.has(old[run]!.position)) run += 1;
  if (run === 0) return [...seeded];
  const last = old[run - 1]!.position;
  return [...old.slice(0, run), ...seeded.filter((unit) => unit.position > last)];
}

/**
 * A core that starts (or starts again) within `room`: the units the current question needs (those clearing
 * `FRESH_THRESHOLD`, best first by the fill's ranking and the recency-boosted weights), in input order, from the
 * first user unit among them. The newest history is sent anyway (the recent messages, then every new message joins
 * the core while it fits), so a core seeded from the question adds what the chat's topic needs rather than more of
 * the same stretch; with nothing standing out (equal weights) it is the newest units.
 */
function seededCore(
  units: readonly SelectionUnit[],
  open: readonly SelectionUnit[],
  kept: readonly boolean[],
  room: number,
  weights: ArrayLike<number>,
  ranking: FillRanking | undefined,
): SelectionUnit[] {
  const relevant = relevantOutside(open, kept);
  if (relevant.length === 0) return newestBlock(open, room);
  const picked = units.map(() => false);
  fillByWeight(relevant, weights, room, picked, ranking);
  const core = open.filter((unit) => picked[unit.position]);
  while (core.length > 0 && core[0]!.role !== 'user') core.shift();
  return core;
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
 * Where the fresh share goes, so that more of this prompt repeats in the next one. Sent after the recent messages
 * (the default order: returns undefined) while the core has room to take them at the next request and they outweigh
 * the messages the question picked again (`sticky`): then the core and the recent messages repeat. Otherwise the
 * order that sends it right after the core (`Selection.leading`): the core with the pinned and tagged messages among
 * it, in input order, then the messages picked again in the order they were sent, then the other picks in input
 * order; the recent messages after them. Then the core and the fresh share repeat while the question stays on its
 * subject. Undefined too when nothing was picked again, or when that order would not open with a user message.
 */
function freshAfterCore(plan: {
  units: readonly SelectionUnit[];
  open: readonly SelectionUnit[];
  core: readonly SelectionUnit[];
  sticky: readonly SelectionUnit[];
  recalled: readonly number[];
  kept: readonly boolean[];
  room: number;
}): number[] | undefined {
  const { units, open, core, sticky, recalled, kept, room } = plan;
  if (sticky.length === 0) return undefined;
  const tokens = (list: readonly SelectionUnit[]) => list.reduce((sum, unit) => sum + unit.tokens, 0);
  // The recent messages and the current turn: the units after the newest open one.
  const newestOpen = open.length > 0 ? open[open.length - 1]!.position : -1;
  const recent = tokens(units.filter((unit) => unit.position > newestOpen && unit.role !== 'system'));
  if (tokens(core) + recent <= room && tokens(sticky) < recent) return undefined;
  const inCore = new Set(core.map((unit) => unit.position));
  const again = new Set(sticky.map((unit) => unit.position));
  const leading = [
    ...units
      .filter((unit) => inCore.has(unit.position) || (unit.mandatory && unit.position < newestOpen))
      .map((unit) => unit.position),
    ...sticky.map((unit) => unit.position),
    ...recalled.filter((position) => !again.has(position)).sort((a, b) => a - b),
  ].filter((position) => kept[position]);
  return units[leading[0]!]?.role === 'user' ? leading : undefined;
}

/**
 * Cache-stable: a chronological core carried over from the chat's previous prompt (its still-valid prefix, so the
 * provider's prompt cache keeps hitting), plus a fresh share picked for the current question. The core is only
 * appended to: it takes every new turn while it fits its room (the history room minus the fresh share); once full it
 * stays as it was sent (its leading part within the room; a leading part under the low-water mark still takes the
 * newer messages that fit up to it) and the newer history waits outside it, until the history left out behind it
 * passes `CORE_MAX_GAP` rooms: then it starts again, as it does without a usable previous prompt, from what the
 * current question needs within the low-water mark (`seededCore`), keeping the lead of the old core that is part of
 * it. The fresh share gets at most the room the core leaves: first the messages the previous prompt sent that the
 * question picks again (`stickyFresh`), then the rest filled by weight (recency-boosted) from the messages outside
 * the core that clear `FRESH_THRESHOLD`. It is sent after the recent messages, before the current turn, or right after
 * the core, whichever repeats more in the next prompt (`freshAfterCore`).
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
    const weights = recencyWeights(units, options.recencyFactor);
    const lowWater = Math.floor(room * CORE_LOW_WATER);
    const seed = () => seededCore(units, open, kept, lowWater, weights, ranking);
    if (carried.reused === 0) core = seed();
    else if (coreTokens() > room) {
      const full = fullCore(core, open, room, lowWater, room * CORE_MAX_GAP, seed);
      core = full.core;
      notes.push(
        full.restarted
          ? `cache_stable: the core restarted from what the question needs (the history left out behind it passed ${CORE_MAX_GAP}× its room)`
          : 'cache_stable: the core is full; it stays as sent (newer history outside it)',
      );
    }
    for (const unit of core) kept[unit.position] = true;
    const used = coreTokens();
    const fresh = relevantOutside(open, kept);
    const before = kept.slice();
    const freshRoom = Math.max(0, available - used);
    const sticky = stickyFresh(fresh, kept, freshRoom, { ids, sequence: previousSequence ?? [] }, { weights, ranking });
    let stickyTokens = 0;
    for (const unit of sticky) {
      kept[unit.position] = true;
      stickyTokens += unit.tokens;
    }
    fillByWeight(fresh, weights, freshRoom - stickyTokens, kept, ranking);
    const picked = new Set(
      fresh.filter((unit) => kept[unit.position] && !before[unit.position]).map((unit) => unit.position),
    );
    dropLeadingFresh(units, kept, picked);
    const recalled = [...picked].filter((position) => kept[position]);
    const leading = freshAfterCore({ units, open, core, sticky, recalled, kept, room });
    if (!leading) return { kept, notes, prefixReused: carried.reused, recalled };
    notes.push(
      `cache_stable: ${sticky.length} message(s) picked for the question last time sent again after the core, the recent messages after them`,
    );
    return { kept, notes, prefixReused: carried.reused, recalled, leading };
  },
};
