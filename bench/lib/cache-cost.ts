/** Per-million-token input prices. */
export interface InputPrices {
  input: number;
  cacheRead: number;
}

/** gpt-4o list prices: input $2.50/M, cache read $1.25/M. */
export const GPT_4O_PRICES: InputPrices = { input: 2.5, cacheRead: 1.25 };

/** USD of a prompt whose first `cached` tokens are read from the provider's prompt cache. */
export function promptCost(promptTokens: number, cached: number, prices: InputPrices): number {
  const hit = Math.min(Math.max(cached, 0), promptTokens);
  return ((promptTokens - hit) * prices.input + hit * prices.cacheRead) / 1_000_000;
}
