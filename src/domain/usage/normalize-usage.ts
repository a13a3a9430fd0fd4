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

/**
 * Token usage of one reply in OpenAI subset semantics (cached, cache-write ⊂ prompt; reasoning ⊂ completion), whatever
 * the shape it was reported in.
 */
export interface NormalizedUsage extends TokenCounts {
  webSearches: number;
  /** The provider's own charge in USD (OpenRouter `cost`, plus the BYOK upstream cost). */
  reportedCost?: string;
  /** The 1-hour part of `cacheWriteTokens` (Anthropic bills it at 2× input, 5-minute writes at 1.25×); for pricing only. */
  cacheWrite1hTokens?: number;
  /** Which backend shape was recognised. */
  shape:
    | 'openai'
    | 'openrouter'
    | 'anthropic'
    | 'responses'
    | 'ollama'
    | 'llamacpp'
    | 'open-webui-merged'
    | 'deepseek'
    | 'perplexity';
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

  /** A count that contradicts another (more cached tokens than the prompt…): refused, counts as 0. */
  impossible(field: string, part: UsagePart, value: number, reason: RejectedUsage['reason']): void {
    this.rejected.push({ field, part, value: shown(value), reason });
  }

  /**
   * The provider's charge (with the BYOK upstream cost; Perplexity's `cost.total_cost`), or undefined (kept as refused
   * when it was given but unusable).
   */
  cost(usage: Bag): string | undefined {
    if (!given(usage.cost)) return undefined;
    if (isBag(usage.cost)) {
      if (!given(usage.cost.total_cost)) return undefined;
      const total = this.money(usage.cost.total_cost, 'cost.total_cost');
      return total === undefined ? undefined : formatDecimal(total);
    }
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

/** The first given value of `candidates` (a field name and its value), or undefined. */
function firstGiven(candidates: Array<[string, unknown]>): [string, unknown] | undefined {
  return candidates.find(([, value]) => given(value));
}

/**
 * Normalise one usage object of any backend shape into OpenAI subset semantics. Which fields are read, per shape, and
 * the billing rule of each is the table in docs/accounting.md ("Usage shapes"):
 * - OpenAI chat (`prompt_tokens`…), OpenAI Responses (`input_tokens`…), OpenRouter (`cost`, `cache_write_tokens`,
 *   BYOK), Open WebUI's merged usage (`input_tokens`/`output_tokens` summed over a tool loop win over the last call's
 *   `prompt_tokens`/`completion_tokens`), gateways carrying Anthropic's counters (`cache_read_input_tokens`,
 *   `cache_creation_input_tokens`, LiteLLM's `prompt_tokens_details.cache_creation_tokens`, 1-hour writes), DeepSeek
 *   (`prompt_cache_hit_tokens`), Perplexity (`citation_tokens`, `reasoning_tokens`, `num_search_queries`, the `cost`
 *   object), reasoning outside the completion (xAI; Gemini's thinking only in `total_tokens`);
 * - Anthropic native (cache counts on top of `input_tokens`), Ollama (`prompt_eval_count`), llama.cpp (`prompt_n`,
 *   or `timings`).
 * Undefined when it carries no token counts. Each field is held to USAGE_BOUNDS, and the parts to each other (cached
 * and cache-write within the prompt, reasoning within the completion): one past them counts as 0 here and is listed in
 * `rejected`.
 */
export function normalizeUsage(raw: unknown): NormalizedUsage | undefined {
  if (!isBag(raw)) return undefined;
  const read = new FieldReader();
  const count = (value: unknown, field: string, part: UsagePart) => read.count(value, field, part);
  const pick = (part: UsagePart, candidates: Array<[string, unknown]>): number | undefined => {
    const found = firstGiven(candidates);
    return found ? count(found[1], found[0], part) : undefined;
  };
  const timings = isBag(raw.timings) ? raw.timings : {};
  const promptDetails = isBag(raw.prompt_tokens_details) ? raw.prompt_tokens_details : undefined;
  const outputDetails = isBag(raw.output_tokens_details) ? raw.output_tokens_details : {};
  const creation = isBag(raw.cache_creation) ? raw.cache_creation : {};
  const toolUse = isBag(raw.server_tool_use_details)
    ? raw.server_tool_use_details
    : isBag(raw.server_tool_use)
      ? raw.server_tool_use
      : {};
  const webSearches =
    read.count(toolUse.web_search_requests, 'web_search_requests', 'webSearches', USAGE_BOUNDS.webSearches) ??
    read.count(raw.num_search_queries, 'num_search_queries', 'webSearches', USAGE_BOUNDS.webSearches) ??
    0;
  const cost = read.cost(raw);
  const finish = (usage: Omit<NormalizedUsage, 'totalTokens' | 'webSearches'>, total?: number): NormalizedUsage => ({
    ...usage,
    totalTokens: total ?? usage.promptTokens + usage.completionTokens,
    webSearches,
    ...(cost !== undefined ? { reportedCost: cost } : {}),
    ...(read.rejected.length > 0 ? { rejected: read.rejected } : {}),
  });

  const promptGiven = given(raw.prompt_tokens) || given(raw.completion_tokens);
  const inputGiven = given(raw.input_tokens) || given(raw.output_tokens);
  const anthropicCounters =
    given(raw.cache_read_input_tokens) || given(raw.cache_creation_input_tokens) || isBag(raw.cache_creation);
  // Anthropic's own meaning: input_tokens excludes cache reads and writes. Its counters beside input_tokens (or
  // output_tokens) with no prompt_tokens (Open WebUI's normalised copy adds only input_tokens) and no
  // prompt_tokens_details (which the OpenAI-shaped gateways set) are Anthropic native. Merged over a tool loop, Open
  // WebUI adds a prompt_tokens alias (the last call's input_tokens): still native when that alias is fewer than the cache
  // counters, which are the same call's and which OpenAI's meaning (cache inside the prompt) cannot exceed.
  const cacheCounted = Number(raw.cache_read_input_tokens ?? 0) + Number(raw.cache_creation_input_tokens ?? 0);
  const nativeMerged = Number(raw.input_tokens) > Number(raw.prompt_tokens) && Number(raw.prompt_tokens) < cacheCounted;
  if (
    anthropicCounters &&
    (given(raw.input_tokens) || given(raw.output_tokens)) &&
    promptDetails === undefined &&
    (!given(raw.prompt_tokens) || nativeMerged)
  ) {
    const cached = count(raw.cache_read_input_tokens, 'cache_read_input_tokens', 'cachedTokens') ?? 0;
    const fiveMinutes = count(
      creation.ephemeral_5m_input_tokens,
      'cache_creation.ephemeral_5m_input_tokens',
      'cacheWriteTokens',
    );
    const oneHour = count(
      creation.ephemeral_1h_input_tokens,
      'cache_creation.ephemeral_1h_input_tokens',
      'cacheWriteTokens',
    );
    const written = given(raw.cache_creation_input_tokens)
      ? (count(raw.cache_creation_input_tokens, 'cache_creation_input_tokens', 'cacheWriteTokens') ?? 0)
      : (fiveMinutes ?? 0) + (oneHour ?? 0);
    const input = count(raw.input_tokens, 'input_tokens', 'promptTokens');
    const completion = count(raw.output_tokens, 'output_tokens', 'completionTokens') ?? 0;
    const reasoning = inside(
      read,
      completion,
      pick('reasoningTokens', [['output_tokens_details.reasoning_tokens', outputDetails.reasoning_tokens]]),
      'output_tokens_details.reasoning_tokens',
    );
    return finish({
      promptTokens: (input ?? 0) + cached + written,
      completionTokens: completion,
      cachedTokens: cached,
      cacheWriteTokens: written,
      ...oneHourWrites(read, written, oneHour, 'cache_creation.ephemeral_1h_input_tokens'),
      reasoningTokens: reasoning,
      shape: 'anthropic',
    });
  }
  if (promptGiven || inputGiven) return readOpenAiLike(raw, read, pick, finish, cost);
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

type Pick = (part: UsagePart, candidates: Array<[string, unknown]>) => number | undefined;
type Finish = (usage: Omit<NormalizedUsage, 'totalTokens' | 'webSearches'>, total?: number) => NormalizedUsage;

/**
 * The OpenAI-like shapes: prompt/completion (or input/output) with the cache and reasoning counts of whichever
 * provider or gateway reported them, converted to subset semantics.
 */
function readOpenAiLike(raw: Bag, read: FieldReader, pick: Pick, finish: Finish, cost: string | undefined) {
  const promptDetails = isBag(raw.prompt_tokens_details) ? raw.prompt_tokens_details : {};
  const completionDetails = isBag(raw.completion_tokens_details) ? raw.completion_tokens_details : {};
  const inputDetails = isBag(raw.input_tokens_details) ? raw.input_tokens_details : {};
  const outputDetails = isBag(raw.output_tokens_details) ? raw.output_tokens_details : {};
  const creation = isBag(raw.cache_creation) ? raw.cache_creation : {};
  const creationDetails = isBag(promptDetails.cache_creation_token_details)
    ? promptDetails.cache_creation_token_details
    : {};
  // Open WebUI (≥ 0.10) adds input_tokens/output_tokens to every usage; its merge_usage sums them over a reply's tool
  // loop while prompt_tokens/completion_tokens keep the last call. The canonical (summed) fields win, unless smaller
  // than their alias (a sum is never below its last term: then they are some provider's other count).
  const summed = (canonical: unknown, alias: unknown) =>
    given(canonical) && (!given(alias) || Number(canonical) >= Number(alias));
  const prompt = pick(
    'promptTokens',
    summed(raw.input_tokens, raw.prompt_tokens)
      ? [['input_tokens', raw.input_tokens]]
      : [['prompt_tokens', raw.prompt_tokens]],
  );
  const completion = pick(
    'completionTokens',
    summed(raw.output_tokens, raw.completion_tokens)
      ? [['output_tokens', raw.output_tokens]]
      : [['completion_tokens', raw.completion_tokens]],
  );
  const merged =
    given(raw.input_tokens) && given(raw.prompt_tokens) && Number(raw.input_tokens) > Number(raw.prompt_tokens);
  // The provider's own field wins over a gateway's copy of it in *_tokens_details, except on a merged usage, where
  // only the details are summed by every Open WebUI version (its 0.11.0 keeps the last call's top-level counters).
  const own = (ownFields: Array<[string, unknown]>, copies: Array<[string, unknown]>) =>
    merged ? [...copies, ...ownFields] : [...ownFields, ...copies];
  // A count with both: on a merged usage the larger of the summed copy and the last call's own counter (a gateway's
  // stale 0, summed, stays 0 and must not hide the provider's count); else the first given of `own`.
  const ownOrCopy = (part: UsagePart, ownFields: Array<[string, unknown]>, copies: Array<[string, unknown]>) => {
    if (!merged) return pick(part, own(ownFields, copies));
    const copy = pick(part, copies);
    const last = pick(part, ownFields);
    return copy === undefined || last === undefined ? (copy ?? last) : Math.max(copy, last);
  };
  let cached =
    ownOrCopy(
      'cachedTokens',
      [
        ['cache_read_input_tokens', raw.cache_read_input_tokens],
        ['prompt_cache_hit_tokens', raw.prompt_cache_hit_tokens],
      ],
      [
        ['prompt_tokens_details.cached_tokens', promptDetails.cached_tokens],
        ['input_tokens_details.cached_tokens', inputDetails.cached_tokens],
      ],
    ) ?? 0;
  const oneHourSplit: Array<[string, unknown]> = own(
    [['cache_creation.ephemeral_1h_input_tokens', creation.ephemeral_1h_input_tokens]],
    [
      [
        'prompt_tokens_details.cache_creation_token_details.ephemeral_1h_input_tokens',
        creationDetails.ephemeral_1h_input_tokens,
      ],
    ],
  );
  const fiveMinuteSplit: Array<[string, unknown]> = own(
    [['cache_creation.ephemeral_5m_input_tokens', creation.ephemeral_5m_input_tokens]],
    [
      [
        'prompt_tokens_details.cache_creation_token_details.ephemeral_5m_input_tokens',
        creationDetails.ephemeral_5m_input_tokens,
      ],
    ],
  );
  let written = ownOrCopy(
    'cacheWriteTokens',
    [['cache_creation_input_tokens', raw.cache_creation_input_tokens]],
    [
      ['prompt_tokens_details.cache_creation_tokens', promptDetails.cache_creation_tokens],
      ['prompt_tokens_details.cache_write_tokens', promptDetails.cache_write_tokens],
    ],
  );
  const oneHour = pick('cacheWriteTokens', oneHourSplit);
  if (written === undefined && oneHour !== undefined)
    written = oneHour + (pick('cacheWriteTokens', fiveMinuteSplit) ?? 0);
  written ??= 0;
  // Perplexity: citation tokens are input beside prompt_tokens, its top-level reasoning_tokens output beside
  // completion_tokens (each priced apart on its pricing page; total_tokens counts neither).
  const citations = read.count(raw.citation_tokens, 'citation_tokens', 'promptTokens') ?? 0;
  const perplexity = given(raw.citation_tokens) || given(raw.num_search_queries) || isBag(raw.cost);
  let promptTokens = (prompt ?? 0) + citations;
  let completionTokens = completion ?? 0;
  const total = read.count(raw.total_tokens, 'total_tokens', 'totalTokens');
  // Cache counts beside the prompt, not inside it, as total_tokens shows: Bedrock's Converse usage mapped to OpenAI
  // names (prompt_tokens = inputTokens, the uncached input; total_tokens = totalTokens, which counts the cache reads and
  // writes): the total holds the reads and writes beside the prompt exactly, or, with more reads than the prompt
  // (impossible inside it) and no writes reported, the rest of the total is the writes Bedrock counts there too. LiteLLM's
  // Bedrock reader of some releases adds the reads to prompt_tokens but not the writes: the total holds the writes beside.
  // A reasoning count beside the completion explains the total instead (xAI, below).
  const reasoningGiven = Number(completionDetails.reasoning_tokens ?? outputDetails.reasoning_tokens ?? 0) > 0;
  const counts = prompt !== undefined && completion !== undefined && total !== undefined && !perplexity;
  let beside = 0;
  if (counts && !reasoningGiven && cached + written > 0) {
    const known = promptTokens + completionTokens;
    if (total === known + cached + written) beside = cached + written;
    else if (written > 0 && total === known + written) beside = written;
    else if (cached > promptTokens && written === 0 && total > known + cached) {
      written = total - known - cached;
      beside = cached + written;
    }
    promptTokens += beside;
  }
  let reasoning: number;
  if (perplexity && given(raw.reasoning_tokens)) {
    reasoning = read.count(raw.reasoning_tokens, 'reasoning_tokens', 'reasoningTokens') ?? 0;
    completionTokens += reasoning;
  } else {
    const reported = pick('reasoningTokens', [
      ['completion_tokens_details.reasoning_tokens', completionDetails.reasoning_tokens],
      ['output_tokens_details.reasoning_tokens', outputDetails.reasoning_tokens],
    ]);
    const counted = beside === 0 && prompt !== undefined && completion !== undefined && total !== undefined;
    if (counted && reported !== undefined && reported > 0 && total === prompt + completion + reported) {
      // Reasoning beside the completion (xAI; Gemini through some proxies): total = prompt + completion + reasoning.
      reasoning = reported;
      completionTokens += reasoning;
    } else if (counted && !reported && total > prompt + completion) {
      // Thinking shown only in total_tokens (Gemini's OpenAI-compatible replies): billed as output.
      reasoning = total - prompt - completion;
      completionTokens += reasoning;
    } else {
      const field = given(completionDetails.reasoning_tokens)
        ? 'completion_tokens_details.reasoning_tokens'
        : 'output_tokens_details.reasoning_tokens';
      reasoning = inside(read, completionTokens, reported, field);
    }
  }
  // Subset semantics: cached and cache-write tokens are part of the prompt; larger is impossible.
  if (cached > promptTokens) {
    read.impossible(cachedField(raw, cached), 'cachedTokens', cached, 'more than the prompt');
    cached = 0;
  }
  if (cached + written > promptTokens) {
    read.impossible(writeField(raw, written), 'cacheWriteTokens', written, 'more than the prompt');
    written = 0;
  }
  const shape: NormalizedUsage['shape'] = perplexity
    ? 'perplexity'
    : given(raw.prompt_cache_hit_tokens) || given(raw.prompt_cache_miss_tokens)
      ? 'deepseek'
      : merged
        ? 'open-webui-merged'
        : cost !== undefined || given(raw.cost) || 'cache_write_tokens' in promptDetails || 'is_byok' in raw
          ? 'openrouter'
          : given(raw.prompt_tokens) || given(raw.completion_tokens)
            ? 'openai'
            : 'responses';
  return finish(
    {
      promptTokens,
      completionTokens,
      cachedTokens: cached,
      cacheWriteTokens: written,
      ...oneHourWrites(read, written, written > 0 ? oneHour : undefined, firstGiven(oneHourSplit)?.[0] ?? ''),
      reasoningTokens: reasoning,
      shape,
    },
    perplexity || (total !== undefined && total < promptTokens + completionTokens) ? undefined : total,
  );
}

/** Reasoning counted inside the completion: more than the completion is impossible (refused, counts as 0). */
function inside(read: FieldReader, completion: number, reasoning: number | undefined, field: string): number {
  if (reasoning === undefined) return 0;
  if (reasoning <= completion) return reasoning;
  read.impossible(field, 'reasoningTokens', reasoning, 'more than the completion');
  return 0;
}

/** The 1-hour part of the cache writes (a subset of them), when reported and possible. */
function oneHourWrites(read: FieldReader, written: number, oneHour: number | undefined, field: string) {
  if (!oneHour) return {};
  if (oneHour <= written) return { cacheWrite1hTokens: oneHour };
  read.impossible(field, 'cacheWriteTokens', oneHour, 'more than the cache writes');
  return {};
}

const cachedField = (raw: Bag, value: number) =>
  ['cache_read_input_tokens', 'prompt_cache_hit_tokens'].find((key) => Number(raw[key]) === value) ??
  (isBag(raw.input_tokens_details) && Number(raw.input_tokens_details.cached_tokens) === value
    ? 'input_tokens_details.cached_tokens'
    : 'prompt_tokens_details.cached_tokens');

const writeField = (raw: Bag, value: number) => {
  if (Number(raw.cache_creation_input_tokens) === value) return 'cache_creation_input_tokens';
  const details = isBag(raw.prompt_tokens_details) ? raw.prompt_tokens_details : {};
  return Number(details.cache_creation_tokens) === value
    ? 'prompt_tokens_details.cache_creation_tokens'
    : 'prompt_tokens_details.cache_write_tokens';
};
