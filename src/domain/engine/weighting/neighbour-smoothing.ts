/** How far (in chat messages) a message lends its score to its neighbours. */
export const NEIGHBOUR_WINDOW = 3;
/** Share of a score lent to an adjacent message; each further step multiplies it by NEIGHBOUR_DECAY. */
export const NEIGHBOUR_SHARE = 0.85;
export const NEIGHBOUR_DECAY = 0.7;
/** Radius (in messages) of the region whose mean score is added to every message. */
export const REGION_RADIUS = 10;

/**
 * Neighbour smoothing, in chat order (system messages and the query left out by the caller):
 * 1. each score becomes at least `share · decay^(d−1)` × the score of a message `d ≤ window`
 *    positions away: what a question needs is often a message and its reply or follow-up
 *    ("Did you go?" — "Yes, to Paris"), and the question's words match only one of them;
 * 2. the mean raw score of the surrounding region (± `radius`) is added, so a message inside a
 *    stretch of the chat about the question's topic beats an isolated one with the same score.
 */
export function smoothNeighbours(
  scores: Float64Array,
  window = NEIGHBOUR_WINDOW,
  share = NEIGHBOUR_SHARE,
  decay = NEIGHBOUR_DECAY,
  radius = REGION_RADIUS,
): Float64Array {
  const count = scores.length;
  const smoothed = Float64Array.from(scores);
  for (let index = 0; index < count; index += 1) {
    let lent = scores[index]! * share;
    for (let step = 1; step <= window && lent > 0; step += 1, lent *= decay) {
      if (index - step >= 0 && smoothed[index - step]! < lent) smoothed[index - step] = lent;
      if (index + step < count && smoothed[index + step]! < lent) smoothed[index + step] = lent;
    }
  }
  if (radius <= 0) return smoothed;
  const prefix = new Float64Array(count + 1);
  for (let index = 0; index < count; index += 1) prefix[index + 1] = prefix[index]! + scores[index]!;
  for (let index = 0; index < count; index += 1) {
    const from = Math.max(0, index - radius);
    const to = Math.min(count, index + radius + 1);
    smoothed[index] = smoothed[index]! + (prefix[to]! - prefix[from]!) / (to - from);
  }
  return smoothed;
}
