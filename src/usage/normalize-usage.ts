import { add, formatDecimal, parseDecimal } from '../pricing/decimal.js';
import type { TokenCounts } from './types.js';

/** Token usage of one reply in OpenAI subset semantics (cached, cache-write ⊂ prompt; reasoning ⊂ completion). */
export interface NormalizedUsage extends TokenCounts {
  webSearches: number;
  /** The provider's own charge in USD (OpenRouter `cost`, plus the BYOK upstream cost). */
  reportedCost?: string;
  /** Which backend shape was recognised. */
  shape: 'openai' | 'openrouter' | 'anthropic' | 'responses' | 'ollama' | 'llamacpp';
}

type Bag = Record<string, unknown>;
const isBag = (value: unknown): value is Bag => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A non-negative integer from a number or numeric string; undefined otherwise. */
function count(value: unknown): number | undefined {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) && number >= 0 ? Math.round(number) : undefined;
}

function reportedCost(usage: Bag): string | undefined {
  const cost = parseDecimal(usage.cost);
  if (cost === undefined || cost < 0n) return undefined;
  const details = isBag(usage.cost_details) ? usage.cost_details : {};
  const upstream = usage.is_byok === true ? parseDecimal(details.upstream_inference_cost) : undefined;
  return formatDecimal(upstream !== undefined && upstream > 0n ? add(cost, upstream) : cost);
}

/**
 * Normalise one usage object of any backend shape — OpenAI, OpenRouter
 * (cost, cached, cache-write, reasoning, BYOK), OpenAI Responses, Anthropic native (cache counts
 * on top of `input_tokens`), Ollama (`prompt_eval_count`), llama.cpp (`prompt_n`, or `timings`) —
 * into one shape. Undefined when it carries no token counts.
 */
export function normalizeUsage(raw: unknown): NormalizedUsage | undefined {
  if (!isBag(raw)) return undefined;
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
  const webSearches = count(toolUse.web_search_requests) ?? 0;
  const cost = reportedCost(raw);
  const finish = (usage: Omit<NormalizedUsage, 'totalTokens' | 'webSearches'>, total?: number): NormalizedUsage => ({
    ...usage,
    totalTokens: total ?? usage.promptTokens + usage.completionTokens,
    webSearches,
    ...(cost !== undefined ? { reportedCost: cost } : {}),
  });

  const prompt = count(raw.prompt_tokens);
  const completion = count(raw.completion_tokens);
  if (prompt !== undefined || completion !== undefined) {
    const cached = count(promptDetails.cached_tokens) ?? 0;
    const cacheWrite = count(promptDetails.cache_write_tokens) ?? 0;
    const shape =
      cost !== undefined || 'cache_write_tokens' in promptDetails || 'is_byok' in raw ? 'openrouter' : 'openai';
    return finish(
      {
        promptTokens: prompt ?? 0,
        completionTokens: completion ?? 0,
        cachedTokens: cached,
        cacheWriteTokens: cacheWrite,
        reasoningTokens: count(completionDetails.reasoning_tokens) ?? 0,
        shape,
      },
      count(raw.total_tokens),
    );
  }
  const cacheRead = count(raw.cache_read_input_tokens);
  const cacheCreation = isBag(raw.cache_creation)
    ? (count(raw.cache_creation.ephemeral_5m_input_tokens) ?? 0) +
      (count(raw.cache_creation.ephemeral_1h_input_tokens) ?? 0)
    : undefined;
  const cacheWrite = count(raw.cache_creation_input_tokens) ?? cacheCreation;
  const input = count(raw.input_tokens);
  const output = count(raw.output_tokens);
  if ((cacheRead !== undefined || cacheWrite !== undefined) && (input !== undefined || output !== undefined)) {
    // Anthropic native: input_tokens excludes cache reads and writes; convert to subset semantics.
    const cached = cacheRead ?? 0;
    const written = cacheWrite ?? 0;
    return finish({
      promptTokens: (input ?? 0) + cached + written,
      completionTokens: output ?? 0,
      cachedTokens: cached,
      cacheWriteTokens: written,
      reasoningTokens: count(outputDetails.reasoning_tokens) ?? 0,
      shape: 'anthropic',
    });
  }
  if (input !== undefined || output !== undefined) {
    return finish(
      {
        promptTokens: input ?? 0,
        completionTokens: output ?? 0,
        cachedTokens: count(inputDetails.cached_tokens) ?? 0,
        cacheWriteTokens: 0,
        reasoningTokens: count(outputDetails.reasoning_tokens) ?? 0,
        shape: 'responses',
      },
      count(raw.total_tokens),
    );
  }
  const evalPrompt = count(raw.prompt_eval_count);
  const evalOutput = count(raw.eval_count);
  if (evalPrompt !== undefined || evalOutput !== undefined) {
    return finish({
      promptTokens: evalPrompt ?? 0,
      completionTokens: evalOutput ?? 0,
      cachedTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
      shape: 'ollama',
    });
  }
  const promptN = count(raw.prompt_n) ?? count(timings.prompt_n);
  const predictedN = count(raw.predicted_n) ?? count(timings.predicted_n);
  if (promptN !== undefined || predictedN !== undefined) {
    // llama.cpp: prompt_n counts only the tokens evaluated; cache_n the ones reused from its KV cache.
    const cached = count(timings.cache_n) ?? count(raw.cache_n) ?? 0;
    return finish({
      promptTokens: (promptN ?? 0) + cached,
      completionTokens: predictedN ?? 0,
      cachedTokens: cached,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
      shape: 'llamacpp',
    });
  }
  return undefined;
}
