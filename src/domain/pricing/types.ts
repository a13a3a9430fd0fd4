/**
 * The pricing interface other parts depend on (the engine's cost budgets, the accounting
 * filter, the spend limits). Implemented by src/domain/pricing (OpenRouter table + custom file).
 * Prices are exact decimals: USD per token as decimal strings, never floats.
 */

/** Resolved price of one model, USD per unit as decimal strings ("0.0000025"). */
export interface ModelPrice {
  /** The table id it resolved to, e.g. `openai/gpt-4o`. */
  id: string;
  prompt?: string;
  completion?: string;
  request?: string;
  image?: string;
  webSearch?: string;
  internalReasoning?: string;
  inputCacheRead?: string;
  inputCacheWrite?: string;
  /** 1-hour cache writes (OpenRouter `input_cache_write_1h` when the table has it). */
  inputCacheWrite1h?: string;
  /** Multiply every price by (1 - discount). */
  discount?: number;
  /** Conditional overrides, verbatim from OpenRouter (long-context tiers, time windows). */
  overrides?: Array<Record<string, unknown>>;
  contextLength?: number;
  /** OpenRouter's tokenizer family (`GPT`, `Claude`, `Llama3`, …) when known. */
  tokenizer?: string;
}

/** What the engine and the filters ask of the pricing service. */
export interface PricingLookup {
  /** Resolve a (possibly prefixed / workspace / aliased) model id; undefined when unknown. */
  resolve(model: string, metadata?: { baseModelId?: string | null }): ModelPrice | undefined;
  /** Context length of a model in tokens, when known. */
  contextLength(model: string): number | undefined;
  /** USD cost (as a decimal string) of `promptTokens` input tokens and `completionTokens` output tokens. */
  estimateCost(
    model: string,
    usage: { promptTokens: number; completionTokens?: number; cachedTokens?: number },
  ): string | undefined;
  /**
   * Full cost of one request (cache reads/writes, reasoning, overrides in force at `at`,
   * discount) with the id it was priced as; undefined when the model or its price is unknown.
   * Optional so that test doubles of the engine need not implement it.
   */
  computeCost?(
    model: string,
    usage: CostUsageCounts,
    options?: { at?: number; baseModelId?: string | null },
  ): PricedCost | undefined;
}

/** Token counts in OpenAI subset semantics: cached and cache-write are part of prompt, reasoning part of completion. */
export interface CostUsageCounts {
  promptTokens: number;
  completionTokens?: number;
  cachedTokens?: number;
  cacheWriteTokens?: number;
  /** The part of cacheWriteTokens written for 1 hour (Anthropic `ephemeral_1h_input_tokens`); the rest are 5-minute writes. */
  cacheWrite1hTokens?: number;
  reasoningTokens?: number;
  webSearches?: number;
  images?: number;
}

/** A computed cost: USD as an exact decimal string and the table id it was priced as. */
export interface PricedCost {
  cost: string;
  pricedAs: string;
}
