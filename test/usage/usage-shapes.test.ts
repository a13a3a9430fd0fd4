import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { computeCost } from '../../src/domain/pricing/compute-cost.js';
import { formatDecimal } from '../../src/domain/pricing/decimal.js';
import { ModelIndex } from '../../src/domain/pricing/model-index.js';
import { parseModelList } from '../../src/domain/pricing/openrouter-schema.js';
import { buildPriceTable } from '../../src/domain/pricing/price-table.js';
import { createPricingLookup } from '../../src/domain/pricing/pricing-lookup.js';
import type { ModelPrice } from '../../src/domain/pricing/types.js';
import { buildUsageRecord } from '../../src/domain/usage/build-usage-record.js';
import { findUsage } from '../../src/domain/usage/find-usage.js';
import { normalizeUsage } from '../../src/domain/usage/normalize-usage.js';
import {
  BEDROCK_GATEWAY_CACHE_READ,
  BEDROCK_GATEWAY_CACHE_READ_WRITE,
  DEEPSEEK_CACHE,
  GATEWAY_ANTHROPIC_TOP_LEVEL,
  GEMINI_HIDDEN_THINKING,
  GEMINI_REASONING_OUTSIDE,
  IMPOSSIBLE_CACHE_WRITE,
  IMPOSSIBLE_CACHED,
  IMPOSSIBLE_REASONING,
  LITELLM_ANTHROPIC_CACHE,
  LITELLM_BEDROCK_WRITES_BESIDE,
  OPEN_WEBUI_MERGED,
  OPEN_WEBUI_MERGED_ANTHROPIC_NATIVE,
  OPEN_WEBUI_MERGED_STALE_GATEWAY,
  PERPLEXITY_DEEP_RESEARCH,
  PERPLEXITY_DEEP_RESEARCH_COST,
  PERPLEXITY_SONAR_PRO,
  STALE_GATEWAY_CACHED,
  type UsageExample,
  XAI_REASONING_OUTSIDE,
} from './usage-shapes.examples.js';

/**
 * One usage reader for every real reply shape: each case is a provider's or gateway's documented example (the source is
 * named on the example in usage-shapes.examples.ts), priced with the bundled snapshot (pricing/openrouter-snapshot.json,
 * OpenRouter's prices of 2025-12-02).
 */
const snapshot = parseModelList(JSON.parse(readFileSync('pricing/openrouter-snapshot.json', 'utf8')))!;
const table = buildPriceTable(snapshot.models, 'snapshot', 0);
const index = new ModelIndex(table.models, table.aliases);
const pricing = createPricingLookup(() => index);
const noon = Date.UTC(2026, 0, 1, 12);

/** An Open WebUI 0.11 outlet body: the reply's message carries `usage` at its top level and again as `info.usage`. */
const outletBody = (model: string, usage: Record<string, unknown>) => ({
  model,
  messages: [
    { id: 'u1', role: 'user', content: 'What is the weather in Paris?', timestamp: 1 },
    {
      id: 'a1',
      role: 'assistant',
      content: 'Sunny, 21 °C.',
      output: [{ type: 'message', content: [{ type: 'output_text', text: 'Sunny, 21 °C.' }] }],
      info: { usage },
      usage,
      timestamp: 2,
    },
  ],
  chat_id: 'c1',
  session_id: 's1',
  id: 'a1',
});

const record = async (example: UsageExample) => {
  const built = await buildUsageRecord({
    body: outletBody(example.model, example.usage),
    user: { id: 'u' },
    pricing,
    now: noon,
  });
  return built!.record;
};

describe('Open WebUI ≥ 0.11: usage merged over a tool-call loop', () => {
  // Source: open-webui/open-webui backend/open_webui/utils/response.py merge_usage ("Canonical token fields are
  // additive; provider aliases keep the latest value"), v0.11.0; the outlet body of middleware.py outlet_filter_handler
  // (messages carry `usage`, and `info.usage` mirrors it).
  it('reads the summed input_tokens/output_tokens, not the last call in prompt_tokens/completion_tokens', async () => {
    expect(normalizeUsage(OPEN_WEBUI_MERGED.usage)).toMatchObject({
      promptTokens: 2490,
      completionTokens: 220,
      cachedTokens: 1152,
      totalTokens: 2710,
      shape: 'open-webui-merged',
    });
    const merged = await record(OPEN_WEBUI_MERGED);
    expect(merged).toMatchObject({
      promptTokens: 2490,
      completionTokens: 220,
      cost: '0.006985',
      costSource: 'computed',
    });
  });

  it('finds the usage at the top level of the outlet message', () => {
    expect(findUsage(outletBody('openai/gpt-4o', OPEN_WEBUI_MERGED.usage))).toMatchObject({
      location: 'message.usage',
      usage: { promptTokens: 2490, completionTokens: 220 },
    });
  });

  it('sums cost over the loop: the summed reported cost is the charge', () => {
    // Two OpenRouter calls of $0.0031 and $0.0042 merged: cost is in USAGE_COST_KEYS, summed.
    const usage = normalizeUsage({
      prompt_tokens: 1290,
      completion_tokens: 180,
      input_tokens: 2490,
      output_tokens: 220,
      total_tokens: 2710,
      cost: 0.0073,
      is_byok: false,
    });
    expect(usage).toMatchObject({ promptTokens: 2490, reportedCost: '0.0073' });
  });

  it("Anthropic's native usage merged by Open WebUI keeps Anthropic's meaning (input_tokens excludes the cache)", () => {
    // merge_usage adds prompt_tokens (the last call's input_tokens) to a native Anthropic usage; no *_details exist.
    expect(
      normalizeUsage({
        input_tokens: 30,
        output_tokens: 250,
        total_tokens: 280,
        prompt_tokens: 12,
        completion_tokens: 200,
        cache_read_input_tokens: 4000,
        cache_creation_input_tokens: 600,
      }),
    ).toMatchObject({ promptTokens: 4630, cachedTokens: 4000, cacheWriteTokens: 600, completionTokens: 250 });
  });
});

describe('Open WebUI ≥ 0.11 merged usage: fields merge_usage does not sum', () => {
  // Source: open-webui/open-webui backend/open_webui/utils/response.py merge_usage (read at 04a8a87): only
  // input/output/total_tokens, the cost keys and the four *_tokens_details are summed; every other key (Anthropic's
  // cache_read_input_tokens, cache_creation_input_tokens) keeps the latest call's value, and prompt_tokens is the latest
  // call's prompt_tokens, else its input_tokens.
  it("a gateway's stale cached_tokens: 0, summed, does not hide Anthropic's own count of the last call", async () => {
    // Per call: 2,500 prompt with 2,455 read (2,520 tokens) and 2,600 with 2,500 read: $0.0034215 in all. Only the last
    // call's 2,500 reads survive the merge: 2,600 x $3/M + 2,500 x $0.30/M + 100 x $15/M = $0.01005 (the earlier
    // call's reads at the input price), not every token at the input price ($0.0168).
    expect(normalizeUsage(OPEN_WEBUI_MERGED_STALE_GATEWAY.usage)).toMatchObject({
      promptTokens: 5100,
      completionTokens: 100,
      cachedTokens: 2500,
      shape: 'open-webui-merged',
    });
    expect(await record(OPEN_WEBUI_MERGED_STALE_GATEWAY)).toMatchObject({ cachedTokens: 2500, cost: '0.01005' });
  });

  it('summed details larger than the last call’s own counter are read (LiteLLM over two calls)', () => {
    // LiteLLM's shape (transformation.py calculate_usage) merged: details 2,455 + 5,455 reads and 3,000 + 145 writes,
    // top-level counters the last call's 5,455 and 145.
    expect(
      normalizeUsage({
        prompt_tokens: 5700,
        completion_tokens: 100,
        total_tokens: 11705,
        input_tokens: 11205,
        output_tokens: 500,
        prompt_tokens_details: { cached_tokens: 7910, cache_creation_tokens: 3145 },
        cache_creation_input_tokens: 145,
        cache_read_input_tokens: 5455,
      }),
    ).toMatchObject({ promptTokens: 11205, cachedTokens: 7910, cacheWriteTokens: 3145 });
  });

  it("Anthropic native merged: the last call's input_tokens (prompt_tokens) below its cache counts keeps Anthropic's meaning", async () => {
    // The summed input_tokens (4,300) exceed the last call's cache reads (2,000), but prompt_tokens (that call's
    // input_tokens, 300) does not: the cache counts are beside the input, not inside it. 4,300 x $3/M + 2,000 x
    // $0.30/M + 300 x $15/M = $0.018 (the first call's 2,000 writes are lost in the merge; per call it was $0.0255).
    expect(normalizeUsage(OPEN_WEBUI_MERGED_ANTHROPIC_NATIVE.usage)).toMatchObject({
      promptTokens: 6300,
      completionTokens: 300,
      cachedTokens: 2000,
      cacheWriteTokens: 0,
      shape: 'anthropic',
    });
    expect((await record(OPEN_WEBUI_MERGED_ANTHROPIC_NATIVE)).cost).toBe('0.018');
  });
});

describe('Anthropic cache writes reported in OpenAI shape by gateways', () => {
  // Source: BerriAI/litellm litellm/llms/anthropic/chat/transformation.py calculate_usage (commit 600fadc):
  // prompt_tokens = input_tokens + cache_creation_input_tokens + cache_read_input_tokens (subset semantics), with
  // prompt_tokens_details {cached_tokens, cache_creation_tokens, cache_creation_token_details{ephemeral_5m/1h}}.
  // Anthropic bills 5-minute writes at 1.25x and 1-hour writes at 2x the input price (docs.anthropic.com prompt
  // caching, pricing); the snapshot has input_cache_write (1.25x) and no input_cache_write_1h.
  it('LiteLLM: writes and the 1-hour part read from prompt_tokens_details, billed 1.25x and 2x', async () => {
    expect(normalizeUsage(LITELLM_ANTHROPIC_CACHE.usage)).toMatchObject({
      promptTokens: 5505,
      cachedTokens: 2455,
      cacheWriteTokens: 3000,
      cacheWrite1hTokens: 2000,
      completionTokens: 400,
    });
    // 50 x $3/M + 2,455 x $0.30/M + 1,000 x $3.75/M + 2,000 x $6/M + 400 x $15/M
    expect((await record(LITELLM_ANTHROPIC_CACHE)).cost).toBe('0.0226365');
  });

  it('a gateway with only the top-level Anthropic counters and cache_creation split: the same amount', async () => {
    const reply = await record(GATEWAY_ANTHROPIC_TOP_LEVEL);
    expect(reply).toMatchObject({ cachedTokens: 2455, cacheWriteTokens: 3000, cost: '0.0226365' });
  });

  it('the same gateway reply after Open WebUI added its input_tokens/output_tokens copies: the same amount', async () => {
    const normalised = { ...GATEWAY_ANTHROPIC_TOP_LEVEL.usage, input_tokens: 5505, output_tokens: 400 };
    const reply = await record({ ...GATEWAY_ANTHROPIC_TOP_LEVEL, usage: normalised });
    expect(reply).toMatchObject({ promptTokens: 5505, cachedTokens: 2455, cacheWriteTokens: 3000, cost: '0.0226365' });
  });

  it('older LiteLLM (cached_tokens in details, cache writes only at the top level)', () => {
    // Source: BerriAI/litellm litellm/llms/anthropic/chat/transformation.py of the older releases (prompt_tokens +=
    // cache_creation_input_tokens and cache_read_input_tokens; PromptTokensDetailsWrapper(cached_tokens=...)).
    expect(
      normalizeUsage({
        prompt_tokens: 3805,
        completion_tokens: 120,
        total_tokens: 3925,
        prompt_tokens_details: { cached_tokens: 2455 },
        cache_creation_input_tokens: 1200,
        cache_read_input_tokens: 2455,
      }),
    ).toMatchObject({ promptTokens: 3805, cachedTokens: 2455, cacheWriteTokens: 1200 });
  });

  it('1-hour writes at input_cache_write_1h when the table has it, else 2x input; 5-minute writes at 1.25x input', () => {
    const sonnet: ModelPrice = { id: 'anthropic/claude-sonnet-4.5', prompt: '0.000003', completion: '0.000015' };
    const usage = { promptTokens: 3050, cacheWriteTokens: 3000, cacheWrite1hTokens: 2000, completionTokens: 0 };
    // 50 x $3/M + 1,000 x $3.75/M + 2,000 x $6/M
    expect(formatDecimal(computeCost(sonnet, usage, noon)!)).toBe('0.0159');
    expect(formatDecimal(computeCost({ ...sonnet, inputCacheWrite1h: '0.000005' }, usage, noon)!)).toBe('0.0139');
  });
});

describe('conflicting fields: the provider’s own field wins', () => {
  // Source: issue #32 item 3 — a gateway's default prompt_tokens_details.cached_tokens: 0 beside Anthropic's own
  // cache_read_input_tokens (the Anthropic Messages usage field, docs.anthropic.com prompt caching).
  it("Anthropic's cache_read_input_tokens over a gateway's stale cached_tokens: 0", async () => {
    const reply = await record(STALE_GATEWAY_CACHED);
    expect(reply).toMatchObject({ promptTokens: 2500, cachedTokens: 2455, cost: '0.0011715' });
  });

  it('input_tokens below prompt_tokens is not an Open WebUI sum: the gateway’s prompt_tokens is read', () => {
    // Open WebUI's sum is never below the last call's prompt_tokens; a gateway's copy of Anthropic's raw input_tokens
    // (cache excluded) beside its own prompt_tokens (cache included) is.
    expect(normalizeUsage({ ...LITELLM_ANTHROPIC_CACHE.usage, input_tokens: 50 })).toMatchObject({
      promptTokens: 5505,
      cachedTokens: 2455,
      cacheWriteTokens: 3000,
    });
  });
});

describe('cache counts beside the prompt: Bedrock Converse through OpenAI-shaped gateways', () => {
  // Source: docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_TokenUsage.html and the Bedrock prompt caching
  // guide (inputTokens is the uncached input; cacheReadInputTokens and cacheWriteInputTokens are beside it, and
  // totalTokens counts them), as quoted in crmne/ruby_llm#832 and anomalyco/opencode#38427; maximhq/bifrost#1872
  // ("Total tokens from bedrock already includes the cached tokens"). Gateways map inputTokens to prompt_tokens and
  // totalTokens to total_tokens.
  it('cache reads larger than the prompt and held beside it by total_tokens: added to the prompt, not refused', async () => {
    // 50 x $3/M + 2,455 x $0.30/M + 400 x $15/M; not the cache reads billed as output ($0.042975).
    expect(normalizeUsage(BEDROCK_GATEWAY_CACHE_READ.usage)).toMatchObject({
      promptTokens: 2505,
      cachedTokens: 2455,
      completionTokens: 400,
      reasoningTokens: 0,
      totalTokens: 2905,
    });
    const reply = await record(BEDROCK_GATEWAY_CACHE_READ);
    expect(reply.rejectedUsage).toBeUndefined();
    expect(reply.cost).toBe('0.0068865');
  });

  it("the rest of Bedrock's total past the reads and the output is its cache writes", async () => {
    // 50 x $3/M + 2,455 x $0.30/M + 3,000 x $3.75/M + 400 x $15/M
    expect(normalizeUsage(BEDROCK_GATEWAY_CACHE_READ_WRITE.usage)).toMatchObject({
      promptTokens: 5505,
      cachedTokens: 2455,
      cacheWriteTokens: 3000,
      completionTokens: 400,
      reasoningTokens: 0,
    });
    expect((await record(BEDROCK_GATEWAY_CACHE_READ_WRITE)).cost).toBe('0.0181365');
  });

  // Source: BerriAI/litellm litellm/llms/bedrock/chat/converse_transformation.py _transform_usage (the 2025 release
  // that adds cacheReadInputTokens to prompt_tokens and not cacheWriteInputTokens; total_tokens is Bedrock's).
  it('LiteLLM on Bedrock: cache writes beside a prompt_tokens that holds the reads', async () => {
    // Not the writes refused as more than the prompt and billed as output ($0.0518865): 50 x $3/M + 2,455 x $0.30/M +
    // 3,000 x $3.75/M + 400 x $15/M.
    expect(normalizeUsage(LITELLM_BEDROCK_WRITES_BESIDE.usage)).toMatchObject({
      promptTokens: 5505,
      cachedTokens: 2455,
      cacheWriteTokens: 3000,
      completionTokens: 400,
      reasoningTokens: 0,
    });
    const reply = await record(LITELLM_BEDROCK_WRITES_BESIDE);
    expect(reply.rejectedUsage).toBeUndefined();
    expect(reply.cost).toBe('0.0181365');
  });

  // Source: aws-samples/bedrock-access-gateway src/api/models/bedrock.py _create_response_stream at 00b1a07
  // (prompt_tokens = totalTokens - outputTokens, cached_tokens = cacheReadInputTokens: OpenAI's meaning).
  it("a gateway that already folds Bedrock's cache into prompt_tokens is read as OpenAI's shape", () => {
    expect(
      normalizeUsage({
        prompt_tokens: 5505,
        completion_tokens: 400,
        total_tokens: 5905,
        prompt_tokens_details: { cached_tokens: 2455, audio_tokens: 0 },
      }),
    ).toMatchObject({ promptTokens: 5505, cachedTokens: 2455, cacheWriteTokens: 0, completionTokens: 400 });
  });

  it('cached tokens inside the prompt with thinking in the total (Gemini) are left as they are', () => {
    // Gemini's implicit cache is part of prompt_tokens; its thoughts show only in total_tokens (mozilla-ai/any-llm#1290).
    expect(
      normalizeUsage({
        prompt_tokens: 5000,
        completion_tokens: 200,
        total_tokens: 9700,
        prompt_tokens_details: { cached_tokens: 4000 },
      }),
    ).toMatchObject({ promptTokens: 5000, cachedTokens: 4000, completionTokens: 4700, reasoningTokens: 4500 });
  });
});

describe('reasoning outside the completion count', () => {
  // Source: UKGovernmentBEIS/inspect_ai#5528 ("xAI reports reasoning_tokens separately from completion_tokens: its
  // total_tokens is prompt + completion + reasoning"); counts as measured on xAI in LiveBench/LiveBench#503.
  it('xAI: total = prompt + completion + reasoning, so reasoning is added to the completion and billed as output', async () => {
    expect(normalizeUsage(XAI_REASONING_OUTSIDE.usage)).toMatchObject({
      completionTokens: 2950,
      reasoningTokens: 1935,
      totalTokens: 3150,
    });
    expect((await record(XAI_REASONING_OUTSIDE)).cost).toBe('0.04485');
  });

  // Source: mozilla-ai/any-llm#1290 (gemini-2.5-flash: prompt 20, candidates 198, thoughts 405, total 623; Gemini bills
  // thoughts as output and counts them in total only).
  it('Gemini: thinking visible only in total_tokens is billed as output', async () => {
    expect(normalizeUsage(GEMINI_HIDDEN_THINKING.usage)).toMatchObject({
      completionTokens: 603,
      reasoningTokens: 405,
      totalTokens: 623,
    });
    expect((await record(GEMINI_HIDDEN_THINKING)).cost).toBe('0.0015135');
  });

  // Source: router-for-me/CLIProxyAPI#5733 (completion_tokens 0, reasoning_tokens 60, total 81 = 21 + 60).
  it('Gemini through a proxy: completion 0 beside 60 reasoning tokens', () => {
    expect(normalizeUsage(GEMINI_REASONING_OUTSIDE.usage)).toMatchObject({ completionTokens: 60, reasoningTokens: 60 });
  });

  // Source: openai-python types/completion_usage.py (reasoning tokens "are still counted in the total completion
  // tokens for purposes of billing").
  it("OpenAI's reasoning inside the completion is left as it is", () => {
    expect(
      normalizeUsage({
        prompt_tokens: 75,
        completion_tokens: 1186,
        total_tokens: 1261,
        completion_tokens_details: { reasoning_tokens: 1024 },
      }),
    ).toMatchObject({ completionTokens: 1186, reasoningTokens: 1024, totalTokens: 1261 });
  });
});

describe('DeepSeek and Perplexity fields', () => {
  // Source: api-docs.deepseek.com/guides/kv_cache — prompt_cache_hit_tokens / prompt_cache_miss_tokens (hit + miss =
  // prompt_tokens); prices of api-docs.deepseek.com/quick_start/pricing for deepseek-chat: $0.07/M cache hit, $0.27/M
  // cache miss, $1.10/M output.
  it('DeepSeek: cache hits are the cached tokens and priced at the cache-hit price', () => {
    const usage = normalizeUsage(DEEPSEEK_CACHE.usage)!;
    expect(usage).toMatchObject({ promptTokens: 1300, cachedTokens: 1024, shape: 'deepseek' });
    const deepseek: ModelPrice = {
      id: 'deepseek/deepseek-chat',
      prompt: '0.00000027',
      inputCacheRead: '0.00000007',
      completion: '0.0000011',
    };
    expect(formatDecimal(computeCost(deepseek, usage, noon)!)).toBe('0.0003112');
  });

  // Source: https://docs.perplexity.ai/docs/sonar/pro-search/quickstart (Response: usage.cost is an object).
  it('Perplexity: the cost object is read, total_cost is the charge', async () => {
    const reply = await record(PERPLEXITY_SONAR_PRO);
    expect(reply).toMatchObject({ cost: '0.015', costSource: 'reported' });
    expect(reply.rejectedUsage).toBeUndefined();
  });

  // Source: bgeneto/open-webui-cost-tracker#6 (a real deep-research usage on an Open WebUI outlet: total_tokens =
  // prompt + completion, citations and reasoning beside them); https://docs.perplexity.ai/getting-started/pricing
  // (Sonar Deep Research: input $2/M, output $8/M, citation tokens $2/M, reasoning tokens $3/M, searches $5/1K).
  it('Perplexity deep research: citations, reasoning and searches read and priced', async () => {
    expect(normalizeUsage(PERPLEXITY_DEEP_RESEARCH.usage)).toMatchObject({
      promptTokens: 7407,
      completionTokens: 76504,
      reasoningTokens: 73248,
      webSearches: 74,
      shape: 'perplexity',
    });
    // 7,407 x $2/M + 3,256 x $8/M + 73,248 x $3/M (internal_reasoning) + 74 x $0.005 (web_search)
    expect(await record(PERPLEXITY_DEEP_RESEARCH)).toMatchObject({ cost: '0.630606', costSource: 'computed' });
  });

  // Source: https://docs.perplexity.ai/api-reference/chat-completions-post (usage.cost: input_tokens_cost,
  // output_tokens_cost, citation_tokens_cost, reasoning_tokens_cost, search_queries_cost, request_cost, total_cost).
  it('Perplexity deep research with its cost object: total_cost recorded', async () => {
    const reply = await record(PERPLEXITY_DEEP_RESEARCH_COST);
    expect(reply).toMatchObject({ cost: '0.630606', costSource: 'reported', promptTokens: 7407 });
    expect(reply.rejectedUsage).toBeUndefined();
  });
});

describe('impossible combinations: refused and marked', () => {
  // Source: issue #32 item 6.
  it('more cached tokens than the prompt', async () => {
    const reply = await record(IMPOSSIBLE_CACHED);
    expect(reply.rejectedUsage).toEqual([
      {
        field: 'prompt_tokens_details.cached_tokens',
        part: 'cachedTokens',
        value: '5000000',
        reason: 'more than the prompt',
      },
    ]);
    expect(reply).toMatchObject({ cachedTokens: 0, cost: '0.000075' });
  });

  it('more cache-write tokens than the prompt', async () => {
    const reply = await record(IMPOSSIBLE_CACHE_WRITE);
    expect(reply.rejectedUsage).toEqual([
      {
        field: 'prompt_tokens_details.cache_write_tokens',
        part: 'cacheWriteTokens',
        value: '90000',
        reason: 'more than the prompt',
      },
    ]);
    expect(reply).toMatchObject({ cacheWriteTokens: 0, cost: '0.000375' });
  });

  it('more reasoning than the completion that (by total_tokens) contains it', async () => {
    const reply = await record(IMPOSSIBLE_REASONING);
    expect(reply.rejectedUsage).toEqual([
      {
        field: 'completion_tokens_details.reasoning_tokens',
        part: 'reasoningTokens',
        value: '4000',
        reason: 'more than the completion',
      },
    ]);
    expect(reply.reasoningTokens).toBe(0);
  });

  it('more 1-hour writes than writes; more reasoning than Anthropic native output', () => {
    expect(
      normalizeUsage({
        input_tokens: 10,
        output_tokens: 5,
        cache_creation_input_tokens: 100,
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 900 },
        output_tokens_details: { reasoning_tokens: 50 },
      }),
    ).toMatchObject({
      cacheWriteTokens: 100,
      reasoningTokens: 0,
      rejected: [
        { field: 'output_tokens_details.reasoning_tokens', reason: 'more than the completion' },
        { field: 'cache_creation.ephemeral_1h_input_tokens', reason: 'more than the cache writes' },
      ],
    });
  });
});
