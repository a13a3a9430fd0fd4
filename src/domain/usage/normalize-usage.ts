import { add, compare, decimalOf, formatDecimal, parseDecimal } from '../pricing/decimal.js';
import type { TokenCounts, RejectedUsage, UsagePart } from './types.js';
export type { RejectedUsage, UsagePart } from './types.js';

/**
 * Plausible bounds of one reply's usage, per field. A value past its bound (or negative, not finite, not a number) is
 * rejected: the record is still written, with that field replaced (a token count by the tokenizer's estimate, a cost by
 * the price table's) and listed in the record's `rejectedUsage`.
 * - token counts: 10,000,000 each (ten times the largest context windows served today, 1 M tokens);
 * - web searches: 1,000;
 * - the provider's reported cost: $1,000 (the dearest models today charge about $600 per million output tokens,
 *   and no reply reaches a million).
 */
export const USAGE_BOUNDS = Object.freeze({ tokens: 10_000_000, webSearches: 1_000, costUsd: 1_000 });

/** Token usage of one reply in OpenAI subset semantics (cached, cache-write ⊂ prompt; reasoning ⊂ completion). */
export interface NormalizedUsage extends TokenCounts {
  webSearches: number;
  /** The provider's own charge in USD (OpenRouter `cost`, plus the BYOK upstream cost). */
  reportedCost?: string;
  /** Which backend shape was recognised. */
  shape: 'openai' | 'openrouter' | 'anthropic' | 'responses' | 'ollama' | 'llamacpp';
  /** Fields refused by USAGE_BOUNDS (absent when every field was accepted); each counts as 0 here. */
  rejected?: RejectedUsage[];
}

type Bag = Record<string, unknown>;
const isBag = (value: unknown): value is Bag => typeof value === 'object' && value !== null && !Array.isArray(value);
/** True when a field carries something (absent, null and "" carry nothing). */
const given = (value: unknown) => value !== undefined && value !== null && value !== '';
const MAX_COST = decimalOf(USAGE_BOUNDS.costUsd);

function shown(value: unknown): string {
  let text: string;
  try {
    text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

/** Reads bounded fields, keeping what it refused. */
class FieldReader {
  readonly rejected: RejectedUsage[] = [];

  /** A non-negative integer within `bound` from a number or numeric string; undefined (and kept as refused) otherwise. */
  count(value: unknown, field: string, part: UsagePart, bound: number = USAGE_BOUNDS.tokens): number | undefined {
    if (!given(value)) return undefined;
    const number = typeof value === 'string' ? Number(value.trim()) : value;
    const reason =
      typeof number !== 'number' || Number.isNaN(number)
        ? 'not a number'
        : !Number.isFinite(number)
          ? 'not finite'
          : number < 0
            ? 'negative'
            : Math.round(number) > bound
              ? 'above the bound'
              : undefined;
    if (reason === undefined) return Math.round(number as number);
    this.rejected.push({ field, part, value: shown(value), reason });
    return undefined;
  }

  /** The provider's charge (with the BYOK upstream cost), or undefined (kept as refused when it was given but unusable). */
  cost(usage: Bag): string | undefined {
    if (!given(usage.cost)) return undefined;
    const details = isBag(usage.cost_details) ? usage.cost_details : {};
    const byok = usage.is_byok === true && given(details.upstream_inference_cost);
    const own = this.money(usage.cost, 'cost');
    const upstream = byok
      ? this.money(details.upstream_inference_cost, 'cost_details.upstream_inference_cost')
      : undefined;
    if (own === undefined || (byok && upstream === undefined)) return undefined;
    const total = upstream !== undefined && upstream > 0n ? add(own, upstream) : own;
    if (compare(total, MAX_COST) > 0) {
      this.rejected.push({ field: 'cost', part: 'cost', value: formatDecimal(total), reason: 'above the bound' });
      return undefined;
    }
    return formatDecimal(total);
  }

  private money(value: unknown, field: string): bigint | undefined {
    const number = typeof value === 'string' ? Number(value.trim()) : value;
    const parsed = parseDecimal(value);
    const reason =
      typeof number === 'number' && !Number.isNaN(number) && !Number.isFinite(number)
        ? 'not finite'
        : parsed === undefined
          ? 'not a number'
          : parsed < 0n
            ? 'negative'
            : compare(parsed, MAX_COST) > 0
              ? 'above the bound'
              : undefined;
    if (reason === undefined) return parsed;
    this.rejected.push({ field, part: 'cost', value: shown(value), reason });
    return undefined;
  }
}

/**
 * Normalise one usage object of any backend shape — OpenAI, OpenRouter
 * (cost, cached, cache-write, reasoning, BYOK), OpenAI Responses, Anthropic native (cache counts
 * on top of `input_tokens`), Ollama (`prompt_eval_count`), llama.cpp (`prompt_n`, or `timings`) —
 * into one shape. Undefined when it carries no token counts. Each field is held to USAGE_BOUNDS: one past them
 * (negative, not finite, not a number, too large) counts as 0 here and is listed in `rejected`.
 */
export function normalizeUsage(raw: unknown): NormalizedUsage | undefined {
  if (!isBag(raw)) return undefined;
  const read = new FieldReader();
  const count = (value: unknown, field: string, part: UsagePart) => read.count(value, field, part);
  const timings = isBag(raw.timings) ? raw.timings : {};
  const promptDetails = isBag(raw.prompt_tokens_details) ? raw.prompt_tokens_details : {};
  const completionDetails = isBag(raw.completion_tokens_details) ? raw.completion_tokens_details : {};
  const inputDetails = isBag(raw.input_tokens_details) ? raw.input_tokens_details : {};
  const outputDetails = isBag(raw.output_tokens_details) ? raw.output_tokens_details : {};
  const toolUse = isBag(raw.server_tool_use_details)
    ? raw.server_tool_use_details
    : isBag(raw.server_tool_use)
      ? raw.server_tool_use
      : {};
  const webSearches =
    read.count(toolUse.web_search_requests, 'web_search_requests', 'webSearches', USAGE_BOUNDS.webSearches) ?? 0;
  const cost = read.cost(raw);
  const finish = (usage: Omit<NormalizedUsage, 'totalTokens' | 'webSearches'>, total?: number): NormalizedUsage => ({
    ...usage,
    totalTokens: total ?? usage.promptTokens + usage.completionTokens,
    webSearches,
    ...(cost !== undefined ? { reportedCost: cost } : {}),
    ...(read.rejected.length > 0 ? { rejected: read.rejected } : {}),
  });

  if (given(raw.prompt_tokens) || given(raw.completion_tokens)) {
    const prompt = count(raw.prompt_tokens, 'prompt_tokens', 'promptTokens');
    const completion = count(raw.completion_tokens, 'completion_tokens', 'completionTokens');
    const cached = count(promptDetails.cached_tokens, 'prompt_tokens_details.cached_tokens', 'cachedTokens') ?? 0;
    const cacheWrite =
      count(promptDetails.cache_write_tokens, 'prompt_tokens_details.cache_write_tokens', 'cacheWriteTokens') ?? 0;
    const reasoning =
      count(completionDetails.reasoning_tokens, 'completion_tokens_details.reasoning_tokens', 'reasoningTokens') ?? 0;
    const total = count(raw.total_tokens, 'total_tokens', 'totalTokens');
    const shape =
      cost !== undefined || given(raw.cost) || 'cache_write_tokens' in promptDetails || 'is_byok' in raw
        ? 'openrouter'
        : 'openai';
    return finish(
      {
        promptTokens: prompt ?? 0,
        completionTokens: completion ?? 0,
        cachedTokens: cached,
        cacheWriteTokens: cacheWrite,
        reasoningTokens: reasoning,
        shape,
      },
      total,
    );
  }
  const cacheCreationGiven = isBag(raw.cache_creation);
  const anthropic =
    (given(raw.cache_read_input_tokens) || given(raw.cache_creation_input_tokens) || cacheCreationGiven) &&
    (given(raw.input_tokens) || given(raw.output_tokens));
  if (anthropic) {
    // Anthropic native: input_tokens excludes cache reads and writes; convert to subset semantics.
    const creation = isBag(raw.cache_creation) ? raw.cache_creation : {};
    const cached = count(raw.cache_read_input_tokens, 'cache_read_input_tokens', 'cachedTokens') ?? 0;
    const written = given(raw.cache_creation_input_tokens)
      ? (count(raw.cache_creation_input_tokens, 'cache_creation_input_tokens', 'cacheWriteTokens') ?? 0)
      : (count(creation.ephemeral_5m_input_tokens, 'cache_creation.ephemeral_5m_input_tokens', 'cacheWriteTokens') ??
          0) +
        (count(creation.ephemeral_1h_input_tokens, 'cache_creation.ephemeral_1h_input_tokens', 'cacheWriteTokens') ??
          0);
    const input = count(raw.input_tokens, 'input_tokens', 'promptTokens');
    return finish({
      promptTokens: (input ?? 0) + cached + written,
      completionTokens: count(raw.output_tokens, 'output_tokens', 'completionTokens') ?? 0,
      cachedTokens: cached,
      cacheWriteTokens: written,
      reasoningTokens:
        count(outputDetails.reasoning_tokens, 'output_tokens_details.reasoning_tokens', 'reasoningTokens') ?? 0,
      shape: 'anthropic',
    });
  }
  if (given(raw.input_tokens) || given(raw.output_tokens)) {
    return finish(
      {
        promptTokens: count(raw.input_tokens, 'input_tokens', 'promptTokens') ?? 0,
        completionTokens: count(raw.output_tokens, 'output_tokens', 'completionTokens') ?? 0,
        cachedTokens: count(inputDetails.cached_tokens, 'input_tokens_details.cached_tokens', 'cachedTokens') ?? 0,
        cacheWriteTokens: 0,
        reasoningTokens:
          count(outputDetails.reasoning_tokens, 'output_tokens_details.reasoning_tokens', 'reasoningTokens') ?? 0,
        shape: 'responses',
      },
      count(raw.total_tokens, 'total_tokens', 'totalTokens'),
    );
  }
  if (given(raw.prompt_eval_count) || given(raw.eval_count)) {
    return finish({
      promptTokens: count(raw.prompt_eval_count, 'prompt_eval_count', 'promptTokens') ?? 0,
      completionTokens: count(raw.eval_count, 'eval_count', 'completionTokens') ?? 0,
      cachedTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
      shape: 'ollama',
    });
  }
  const promptField = given(raw.prompt_n) ? 'prompt_n' : 'timings.prompt_n';
  const predictedField = given(raw.predicted_n) ? 'predicted_n' : 'timings.predicted_n';
  const promptValue = given(raw.prompt_n) ? raw.prompt_n : timings.prompt_n;
  const predictedValue = given(raw.predicted_n) ? raw.predicted_n : timings.predicted_n;
  if (given(promptValue) || given(predictedValue)) {
    // llama.cpp: prompt_n counts only the tokens evaluated; cache_n the ones reused from its KV cache.
    const cacheField = given(timings.cache_n) ? 'timings.cache_n' : 'cache_n';
    const cached = count(given(timings.cache_n) ? timings.cache_n : raw.cache_n, cacheField, 'cachedTokens') ?? 0;
    return finish({
      promptTokens: (count(promptValue, promptField, 'promptTokens') ?? 0) + cached,
      completionTokens: count(predictedValue, predictedField, 'completionTokens') ?? 0,
      cachedTokens: cached,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
      shape: 'llamacpp',
    });
  }
  return undefined;
}
