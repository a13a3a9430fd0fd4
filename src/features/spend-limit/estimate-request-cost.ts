import {
  countMessageTokens,
  encodingForModel,
  loadEncoder,
  REPLY_PRIMING_TOKENS,
  type TokenCounter,
} from '../../domain/engine/index.js';
import { baseModelIdOf } from '../../domain/pricing/resolve-model-id.js';
import type { PricingLookup } from '../../domain/pricing/types.js';
import { decimalOf, formatDecimal, mulInt, type Decimal } from '../../domain/pricing/decimal.js';

/** Characters of a request's text counted exactly with the model's tokenizer; the rest is extrapolated. */
export const EXACT_PROMPT_CHARS = 32_768;
/** Tokens per character assumed at least for text past EXACT_PROMPT_CHARS (English runs ~0.2–0.25). */
const MIN_TOKENS_PER_CHAR = 0.25;

/** Where the expected completion of an estimate came from. */
export type CompletionRule = 'max_tokens' | 'recent median' | 'default';

/**
 * Where the cost of an estimate came from: the price table, the model's learned cost per token (a model the table does
 * not know, from its recorded replies with a reported cost), the `unpriced_estimate_usd` valve, or nothing ('0').
 */
export type CostRule = 'price' | 'learned' | 'fallback' | 'none';

/** A request's estimated cost: what the spend-limit inlet holds against the caps. */
export interface RequestEstimate {
  promptTokens: number;
  completionTokens: number;
  completionRule: CompletionRule;
  /** USD, exact decimal string ('0' when the model has no price and nothing covers it). */
  cost: string;
  costRule: CostRule;
  /** The price-table id, when the model has a price. */
  pricedAs?: string;
}

/**
 * A token counter that counts the first `budget` characters it is given exactly and extrapolates the
 * rest at the counted part's tokens per character (at least MIN_TOKENS_PER_CHAR): a 20 MB message costs
 * the inlet one bounded tokenizer run, not seconds of event loop.
 */
function boundedCounter(encoder: TokenCounter, budget: number): TokenCounter {
  let left = budget;
  let countedChars = 0;
  let countedTokens = 0;
  return {
    count(text) {
      if (text.length <= left) {
        left -= text.length;
        const tokens = encoder.count(text);
        countedChars += text.length;
        countedTokens += tokens;
        return tokens;
      }
      const head = text.slice(0, left);
      left = 0;
      const headTokens = head ? encoder.count(head) : 0;
      countedChars += head.length;
      countedTokens += headTokens;
      const ratio = Math.max(countedChars > 0 ? countedTokens / countedChars : 0, MIN_TOKENS_PER_CHAR);
      return headTokens + Math.ceil((text.length - head.length) * ratio);
    },
  };
}

/**
 * Prompt tokens of the messages as the context engine counts them (chat-format overheads, images by
 * tiles), with the model's tokenizer for the first EXACT_PROMPT_CHARS characters and an extrapolation
 * beyond. The spend-limit filter runs before the context filter, so this counts the whole history: an
 * upper bound of what the context filter passes on (it only drops or shortens messages).
 */
export function estimatePromptTokensBounded(messages: readonly unknown[], model?: string): number {
  const counter = boundedCounter(loadEncoder(encodingForModel(model).encoding), EXACT_PROMPT_CHARS);
  let total = REPLY_PRIMING_TOKENS;
  for (const message of messages) total += countMessageTokens(message, counter);
  return total;
}

/** The request's own completion limit (`max_completion_tokens`, else `max_tokens`), when a positive number. */
export function requestedMaxTokens(body: Record<string, unknown>): number | undefined {
  for (const key of ['max_completion_tokens', 'max_tokens']) {
    const value = body[key];
    if (typeof value === 'number' && Number.isFinite(value) && value > 0) return Math.ceil(value);
  }
  return undefined;
}

/**
 * The estimated cost of a request: prompt tokens (estimatePromptTokensBounded) at the model's input price
 * plus an expected completion at its output price. Expected completion, first that applies: the request's
 * `max_tokens` / `max_completion_tokens` (an upper bound), the user's recent median completion, the
 * `fallbackCompletionTokens` valve. A manifold model id (`<pipe>.<upstream id>`) unknown to the price table is
 * priced as its upstream id; a workspace model as its base model (`metadata.model.info.base_model_id`). A model
 * without a price costs '0' here (`costRule: 'none'`); coverUnpriced gives it its learned cost or the fallback.
 */
export function estimateRequestCost(options: {
  body: Record<string, unknown>;
  pricing?: PricingLookup;
  at: number;
  recentMedian?: number;
  fallbackCompletionTokens: number;
}): RequestEstimate {
  const { body, pricing, at } = options;
  const model = typeof body.model === 'string' ? body.model : 'unknown';
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const promptTokens = estimatePromptTokensBounded(messages, model);
  const requested = requestedMaxTokens(body);
  const [completionTokens, completionRule]: [number, CompletionRule] =
    requested !== undefined
      ? [requested, 'max_tokens']
      : options.recentMedian !== undefined
        ? [options.recentMedian, 'recent median']
        : [options.fallbackCompletionTokens, 'default'];
  const baseModelId = baseModelIdOf(body);
  const counts = { promptTokens, completionTokens };
  let priced: { cost: string; pricedAs: string } | undefined;
  // A manifold's model (`openai-proxy.gpt-4o-mini`) is priced as its upstream id when the whole id is unknown.
  for (const id of new Set([model, model.slice(model.indexOf('.') + 1)])) {
    priced = price(pricing, id, counts, at, baseModelId);
    if (priced) break;
  }
  return {
    promptTokens,
    completionTokens,
    completionRule,
    cost: priced?.cost ?? '0',
    costRule: priced ? 'price' : 'none',
    ...(priced ? { pricedAs: priced.pricedAs } : {}),
  };
}

/**
 * The price table's id a request's model is priced as (what estimateRequestCost and the recorded reply price it as:
 * a workspace model as its base model, a manifold's model as its upstream id), or undefined when it has no price.
 */
export function pricedModelId(body: Record<string, unknown>, pricing: PricingLookup | undefined): string | undefined {
  if (!pricing || typeof body.model !== 'string') return undefined;
  const model = body.model;
  const baseModelId = baseModelIdOf(body);
  for (const id of new Set([model, model.slice(model.indexOf('.') + 1)])) {
    const resolved = pricing.resolve(id, { baseModelId });
    if (resolved) return resolved.id;
  }
  return undefined;
}

/**
 * The estimate of a request for a model without a price: its tokens at the cost per token the model has been seen to
 * cost (`learnedRate`), else `fallbackUsd` when positive, else unchanged ('0'). A priced estimate is returned as is.
 */
export function coverUnpriced(
  estimate: RequestEstimate,
  options: { learnedRate?: Decimal; fallbackUsd: number },
): RequestEstimate {
  if (estimate.costRule !== 'none') return estimate;
  if (options.learnedRate !== undefined) {
    const tokens = estimate.promptTokens + estimate.completionTokens;
    return { ...estimate, cost: formatDecimal(mulInt(options.learnedRate, tokens)), costRule: 'learned' };
  }
  if (options.fallbackUsd > 0)
    return { ...estimate, cost: formatDecimal(decimalOf(options.fallbackUsd)), costRule: 'fallback' };
  return estimate;
}

function price(
  pricing: PricingLookup | undefined,
  model: string,
  counts: { promptTokens: number; completionTokens: number },
  at: number,
  baseModelId: string | undefined,
): { cost: string; pricedAs: string } | undefined {
  if (!pricing) return undefined;
  if (pricing.computeCost) return pricing.computeCost(model, counts, { at, baseModelId });
  const resolved = pricing.resolve(model, { baseModelId });
  const cost = resolved ? pricing.estimateCost(resolved.id, counts) : undefined;
  return resolved && cost !== undefined ? { cost, pricedAs: resolved.id } : undefined;
}
