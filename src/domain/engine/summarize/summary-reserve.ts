/** Tokens of the summary block's own framing (message overhead and header). */
export const SUMMARY_OVERHEAD_TOKENS = 16;

/** The summary block may take at most this share of the budget. */
export const SUMMARY_BUDGET_SHARE = 0.25;

/** Below this many tokens a summary is not worth asking for. */
export const MIN_SUMMARY_TOKENS = 24;

/**
 * Tokens to reserve for a summary of `summarizedTokens` tokens, so the summary block fits
 * in the budget with the kept messages: ratio × tokens, capped
 * at `maxTokens`, plus framing; 0 when nothing is summarized.
 */
export function summaryReserve(summarizedTokens: number, ratio: number, maxTokens: number): number {
  if (summarizedTokens <= 0) return 0;
  return Math.min(maxTokens, Math.ceil(summarizedTokens * ratio)) + SUMMARY_OVERHEAD_TOKENS;
}

/**
 * The reserve actually granted: the wanted reserve, limited to a share of the budget and to
 * the room left after the kept messages; 0 (nothing to summarize into) when under the minimum.
 */
export function grantedSummaryReserve(wanted: number, budget: number, room: number): number {
  if (wanted <= 0) return 0;
  const share = Number.isFinite(budget) ? Math.floor(budget * SUMMARY_BUDGET_SHARE) : Infinity;
  const body = Math.min(
    wanted - SUMMARY_OVERHEAD_TOKENS,
    share - SUMMARY_OVERHEAD_TOKENS,
    room - SUMMARY_OVERHEAD_TOKENS,
  );
  return body >= MIN_SUMMARY_TOKENS ? body + SUMMARY_OVERHEAD_TOKENS : 0;
}
