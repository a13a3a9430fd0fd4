/** Tokens of the summary block's own framing (message overhead and header). */
export const SUMMARY_OVERHEAD_TOKENS = 16;

/**
 * Tokens to reserve for a summary of `summarizedTokens` tokens (W6): ratio × tokens, capped
 * at `maxTokens`, plus framing; 0 when nothing is summarized.
 */
export function summaryReserve(summarizedTokens: number, ratio: number, maxTokens: number): number {
  if (summarizedTokens <= 0) return 0;
  return Math.min(maxTokens, Math.ceil(summarizedTokens * ratio)) + SUMMARY_OVERHEAD_TOKENS;
}
