/**
 * Bounded token counting for very long texts. Byte-pair counting costs time in proportion to the text (a 20 MB
 * message took ~2 s on its own, all of it blocking the event loop), so a text longer than `EXACT_COUNT_CHARS` is not
 * counted whole: `SAMPLES` evenly spaced excerpts of `SAMPLE_CHARS` (the first at the start, the last at the end)
 * are counted and the count is scaled to the whole length, plus `ESTIMATE_MARGIN`, so a long text is rather
 * overestimated (and dropped) than sent over a budget. Deterministic: the same text always gets the same count.
 */

/** Texts up to this many UTF-16 code units are counted exactly. */
export const EXACT_COUNT_CHARS = 131_072;
/** Excerpts counted in a longer text. */
export const SAMPLES = 16;
/** Length of each excerpt (16 × 4,096 = 64 Ki characters counted, whatever the text's size). */
export const SAMPLE_CHARS = 4_096;
/** Added to an estimate (a fraction of it). */
export const ESTIMATE_MARGIN = 0.05;

/**
 * Tokens of `text` by `count`: exact up to EXACT_COUNT_CHARS, otherwise estimated from SAMPLES excerpts
 * (at least one token per excerpt's worth of text, rounded up).
 */
export function boundedCount(text: string, count: (text: string) => number): number {
  if (text.length <= EXACT_COUNT_CHARS) return count(text);
  const step = (text.length - SAMPLE_CHARS) / (SAMPLES - 1);
  let sampled = 0;
  for (let sample = 0; sample < SAMPLES; sample += 1) {
    const start = Math.round(sample * step);
    sampled += count(text.slice(start, start + SAMPLE_CHARS));
  }
  const perChar = Math.max(sampled, 1) / (SAMPLES * SAMPLE_CHARS);
  return Math.ceil(perChar * text.length * (1 + ESTIMATE_MARGIN));
}
