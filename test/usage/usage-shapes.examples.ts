/**
 * Usage payloads as real deployments report them, each built from its source's documented example (named on each
 * entry), for usage-shapes.test.ts.
 */
export interface UsageExample {
  name: string;
  /** The price-table id of the model that answered (priced with pricing/openrouter-snapshot.json). */
  model: string;
  usage: Record<string, unknown>;
  source: string;
}

/**
 * Open WebUI merge_usage over a two-call tool loop of gpt-4o (call 1: 1,200 prompt / 40 completion; call 2: 1,290
 * prompt with 1,152 cached / 180 completion). Canonical fields and *_tokens_details are summed, prompt_tokens and
 * completion_tokens keep the last call.
 */
export const OPEN_WEBUI_MERGED: UsageExample = {
  name: 'Open WebUI ≥ 0.11 merged tool loop (gpt-4o, 2 calls)',
  model: 'openai/gpt-4o',
  usage: {
    prompt_tokens: 1290,
    completion_tokens: 180,
    total_tokens: 2710,
    input_tokens: 2490,
    output_tokens: 220,
    compute_tokens: 0,
    measurement: 'provider',
    prompt_tokens_details: { cached_tokens: 1152, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0 },
  },
  source:
    'open-webui/open-webui backend/open_webui/utils/response.py merge_usage (v0.11.0 per its source map; file read at b899de3)',
};

/**
 * LiteLLM's calculate_usage over an Anthropic reply of 50 uncached input tokens, 2,455 cache reads and 3,000 cache
 * writes (1,000 for 5 minutes, 2,000 for 1 hour), 400 output tokens: prompt_tokens = 50 + 3,000 + 2,455.
 */
export const LITELLM_ANTHROPIC_CACHE: UsageExample = {
  name: 'LiteLLM, Anthropic with 5 m and 1 h cache writes (claude-sonnet-4.5)',
  model: 'anthropic/claude-sonnet-4.5',
  usage: {
    prompt_tokens: 5505,
    completion_tokens: 400,
    total_tokens: 5905,
    prompt_tokens_details: {
      cached_tokens: 2455,
      cache_creation_tokens: 3000,
      cache_creation_token_details: { ephemeral_5m_input_tokens: 1000, ephemeral_1h_input_tokens: 2000 },
      text_tokens: 50,
    },
    completion_tokens_details: { reasoning_tokens: 0, text_tokens: 400 },
    cache_creation_input_tokens: 3000,
    cache_read_input_tokens: 2455,
  },
  source: 'BerriAI/litellm litellm/llms/anthropic/chat/transformation.py calculate_usage (commit 600fadc)',
};

/** The same reply from a gateway that copies Anthropic's counters and its `cache_creation` split to the top level. */
export const GATEWAY_ANTHROPIC_TOP_LEVEL: UsageExample = {
  name: 'Gateway, Anthropic counters at top level only (claude-sonnet-4.5)',
  model: 'anthropic/claude-sonnet-4.5',
  usage: {
    prompt_tokens: 5505,
    completion_tokens: 400,
    total_tokens: 5905,
    cache_creation_input_tokens: 3000,
    cache_read_input_tokens: 2455,
    cache_creation: { ephemeral_5m_input_tokens: 1000, ephemeral_1h_input_tokens: 2000 },
  },
  source:
    'Anthropic Messages usage fields (docs.anthropic.com prompt caching) in OpenAI shape, as issue #32 found them',
};

/** A gateway's stale `prompt_tokens_details.cached_tokens: 0` beside Anthropic's own `cache_read_input_tokens`. */
export const STALE_GATEWAY_CACHED: UsageExample = {
  name: 'Stale gateway cached_tokens: 0 beside cache_read_input_tokens (claude-sonnet-4.5)',
  model: 'anthropic/claude-sonnet-4.5',
  usage: {
    prompt_tokens: 2500,
    completion_tokens: 20,
    total_tokens: 2520,
    prompt_tokens_details: { cached_tokens: 0 },
    cache_read_input_tokens: 2455,
    cache_creation_input_tokens: 0,
  },
  source: 'issue #32 item 3 (gateway OpenAI shape with Anthropic counters)',
};

/**
 * STALE_GATEWAY_CACHED's gateway over a two-call tool loop (call 1: 2,500 prompt with 2,455 cache reads / 20
 * completion; call 2: 2,600 prompt with 2,500 cache reads / 80 completion), merged by Open WebUI: the stale
 * `prompt_tokens_details.cached_tokens: 0` is summed (still 0), Anthropic's `cache_read_input_tokens` is not a summed
 * key and keeps the last call's 2,500, `prompt_tokens` the last call's 2,600.
 */
export const OPEN_WEBUI_MERGED_STALE_GATEWAY: UsageExample = {
  name: 'Open WebUI merged tool loop over a stale gateway cached_tokens: 0 (claude-sonnet-4.5, 2 calls)',
  model: 'anthropic/claude-sonnet-4.5',
  usage: {
    prompt_tokens: 2600,
    completion_tokens: 80,
    total_tokens: 5200,
    input_tokens: 5100,
    output_tokens: 100,
    prompt_tokens_details: { cached_tokens: 0 },
    cache_read_input_tokens: 2500,
    cache_creation_input_tokens: 0,
  },
  source:
    'open-webui/open-webui backend/open_webui/utils/response.py merge_usage (read at 04a8a87: USAGE_SUMMABLE_KEYS and USAGE_DETAIL_KEYS summed, every other key the latest call, prompt_tokens the latest call); the gateway reply of issue #32 item 3',
};

/**
 * Anthropic's native usage over a two-call tool loop merged by Open WebUI (call 1: 4,000 uncached input, 2,000 cache
 * writes, 200 output; call 2: 300 uncached input, 2,000 cache reads, 100 output). `input_tokens`, `output_tokens`,
 * `total_tokens` are summed; the cache counters keep the last call; merge_usage adds `prompt_tokens` = the last call's
 * `input_tokens` (300), fewer than that call's cache reads, which OpenAI's meaning (cache inside the prompt) cannot be.
 */
export const OPEN_WEBUI_MERGED_ANTHROPIC_NATIVE: UsageExample = {
  name: 'Open WebUI merged tool loop of Anthropic native usage, large first input (claude-sonnet-4.5, 2 calls)',
  model: 'anthropic/claude-sonnet-4.5',
  usage: {
    input_tokens: 4300,
    output_tokens: 300,
    total_tokens: 4600,
    cache_read_input_tokens: 2000,
    cache_creation_input_tokens: 0,
    prompt_tokens: 300,
    completion_tokens: 100,
  },
  source:
    'open-webui/open-webui backend/open_webui/utils/response.py merge_usage (read at 04a8a87); Anthropic Messages usage (docs.anthropic.com prompt caching: input_tokens excludes cache_read_input_tokens and cache_creation_input_tokens)',
};

/** xAI reports reasoning beside completion: total_tokens = prompt + completion + reasoning. */
export const XAI_REASONING_OUTSIDE: UsageExample = {
  name: 'xAI Grok, reasoning outside completion (grok-4)',
  model: 'x-ai/grok-4',
  usage: {
    prompt_tokens: 200,
    completion_tokens: 1015,
    total_tokens: 3150,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 1935 },
  },
  source:
    'UKGovernmentBEIS/inspect_ai#5528 (xAI total = prompt + completion + reasoning); counts measured on xAI in LiveBench/LiveBench#503',
};

/** Gemini's OpenAI-compatible usage where thinking shows only in total_tokens. */
export const GEMINI_HIDDEN_THINKING: UsageExample = {
  name: 'Gemini, thinking only in total_tokens (gemini-2.5-flash)',
  model: 'google/gemini-2.5-flash',
  usage: { prompt_tokens: 20, completion_tokens: 198, total_tokens: 623 },
  source:
    'mozilla-ai/any-llm#1290 (gemini-2.5-flash: prompt 20, candidates 198, thoughts 405, total 623; thoughts billed as output)',
};

/** Gemini through an OpenAI-compatible proxy: reasoning in the details, completion 0, total = prompt + reasoning. */
export const GEMINI_REASONING_OUTSIDE: UsageExample = {
  name: 'Gemini via proxy, completion 0 and reasoning 60 (gemini-2.5-flash)',
  model: 'google/gemini-2.5-flash',
  usage: {
    prompt_tokens: 21,
    completion_tokens: 0,
    total_tokens: 81,
    completion_tokens_details: { reasoning_tokens: 60 },
  },
  source: 'router-for-me/CLIProxyAPI#5733',
};

/**
 * Claude on Amazon Bedrock through an OpenAI-compatible gateway that maps Converse's usage field by field:
 * prompt_tokens = inputTokens (Bedrock: the uncached input only), completion_tokens = outputTokens, total_tokens =
 * totalTokens (which counts the cache reads and writes), prompt_tokens_details.cached_tokens = cacheReadInputTokens.
 * Converse usage of the reply: inputTokens 50, cacheReadInputTokens 2,455, cacheWriteInputTokens 0, outputTokens 400,
 * totalTokens 2,905.
 */
export const BEDROCK_GATEWAY_CACHE_READ: UsageExample = {
  name: 'Bedrock Converse through an OpenAI-shaped gateway, cache reads beside the prompt (claude-sonnet-4.5)',
  model: 'anthropic/claude-sonnet-4.5',
  usage: {
    prompt_tokens: 50,
    completion_tokens: 400,
    total_tokens: 2905,
    prompt_tokens_details: { cached_tokens: 2455 },
  },
  source:
    'docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_TokenUsage.html and userguide/prompt-caching.html (inputTokens excludes cacheReadInputTokens and cacheWriteInputTokens; quoted in crmne/ruby_llm#832, anomalyco/opencode#38427; totalTokens includes them: maximhq/bifrost#1872); gateways that map Converse field by field (prompt_tokens = inputTokens and total_tokens = totalTokens: elastic/kibana x-pack/platform/plugins/shared/actions/server/lib/token_tracking/get_token_count_from_bedrock_converse.ts; cached_tokens = cacheReadInputTokens: aws-samples/bedrock-access-gateway src/api/models/bedrock.py _create_response at 00b1a07)',
};

/** The same gateway on a reply that also wrote 3,000 tokens to the cache (totalTokens 5,905; writes not mapped). */
export const BEDROCK_GATEWAY_CACHE_READ_WRITE: UsageExample = {
  name: 'Bedrock Converse through an OpenAI-shaped gateway, cache reads and unmapped writes (claude-sonnet-4.5)',
  model: 'anthropic/claude-sonnet-4.5',
  usage: {
    prompt_tokens: 50,
    completion_tokens: 400,
    total_tokens: 5905,
    prompt_tokens_details: { cached_tokens: 2455 },
  },
  source: BEDROCK_GATEWAY_CACHE_READ.source,
};

/**
 * The same reads and writes through LiteLLM's Bedrock Converse reader of the releases that add the cache reads to
 * prompt_tokens but not the writes ("Do not increment prompt_tokens with cacheWriteInputTokens"), with Bedrock's
 * totalTokens as total_tokens: prompt 50 + 2,455, writes 3,000 beside it in cache_creation_input_tokens and the total.
 */
export const LITELLM_BEDROCK_WRITES_BESIDE: UsageExample = {
  name: 'LiteLLM Bedrock Converse, cache writes beside prompt_tokens (claude-sonnet-4.5)',
  model: 'anthropic/claude-sonnet-4.5',
  usage: {
    prompt_tokens: 2505,
    completion_tokens: 400,
    total_tokens: 5905,
    prompt_tokens_details: { cached_tokens: 2455 },
    cache_creation_input_tokens: 3000,
    cache_read_input_tokens: 2455,
  },
  source:
    'BerriAI/litellm litellm/llms/bedrock/chat/converse_transformation.py _transform_usage (the stored 2025 version with "Do not increment prompt_tokens with cacheWriteInputTokens"); Bedrock TokenUsage (docs.aws.amazon.com, API_runtime_TokenUsage)',
};

/** DeepSeek's own cache fields (no prompt_tokens_details): hit + miss = prompt_tokens. */
export const DEEPSEEK_CACHE: UsageExample = {
  name: 'DeepSeek prompt_cache_hit/miss (deepseek-chat)',
  model: 'deepseek/deepseek-chat',
  usage: {
    prompt_tokens: 1300,
    completion_tokens: 150,
    total_tokens: 1450,
    prompt_cache_hit_tokens: 1024,
    prompt_cache_miss_tokens: 276,
  },
  source: 'api-docs.deepseek.com/guides/kv_cache (prompt_cache_hit_tokens, prompt_cache_miss_tokens)',
};

/** Perplexity's documented Sonar Pro response: usage.cost is an object; total_cost is the charge. */
export const PERPLEXITY_SONAR_PRO: UsageExample = {
  name: 'Perplexity cost object (sonar-pro)',
  model: 'perplexity/sonar-pro',
  usage: {
    prompt_tokens: 15,
    completion_tokens: 98,
    total_tokens: 113,
    search_context_size: 'low',
    cost: { input_tokens_cost: 0.0, output_tokens_cost: 0.001, request_cost: 0.014, total_cost: 0.015 },
  },
  source: 'https://docs.perplexity.ai/docs/sonar/pro-search/quickstart (Response)',
};

/**
 * A Sonar Deep Research reply as Open WebUI's outlet carried it: citation and reasoning tokens are beside
 * prompt_tokens and completion_tokens (total_tokens = 108 + 3,256 counts neither). Perplexity's pricing page: input and
 * citation tokens $2/M, output $8/M, reasoning $3/M, searches $5 per 1,000: $0.630606.
 */
export const PERPLEXITY_DEEP_RESEARCH: UsageExample = {
  name: 'Perplexity deep research, no cost object (sonar-deep-research)',
  model: 'perplexity/sonar-deep-research',
  usage: {
    prompt_tokens: 108,
    completion_tokens: 3256,
    total_tokens: 3364,
    citation_tokens: 7299,
    num_search_queries: 74,
    reasoning_tokens: 73248,
  },
  source:
    'bgeneto/open-webui-cost-tracker#6 (the usage of a real reply); https://docs.perplexity.ai/getting-started/pricing (rates)',
};

/** The same reply with the cost object Perplexity's API reference documents (`cost.*`, `total_cost` the charge). */
export const PERPLEXITY_DEEP_RESEARCH_COST: UsageExample = {
  name: 'Perplexity deep research with its cost object (sonar-deep-research)',
  model: 'perplexity/sonar-deep-research',
  usage: {
    ...PERPLEXITY_DEEP_RESEARCH.usage,
    search_context_size: 'low',
    cost: {
      input_tokens_cost: 0.000216,
      output_tokens_cost: 0.026048,
      citation_tokens_cost: 0.014598,
      reasoning_tokens_cost: 0.219744,
      search_queries_cost: 0.37,
      request_cost: 0,
      total_cost: 0.630606,
    },
  },
  source:
    'https://docs.perplexity.ai/api-reference/chat-completions-post (response usage: citation_tokens, num_search_queries, reasoning_tokens, cost)',
};

/** 5,000,000 cached tokens on a 10-token prompt. */
export const IMPOSSIBLE_CACHED: UsageExample = {
  name: 'Impossible: 5,000,000 cached of a 10-token prompt (gpt-4o)',
  model: 'openai/gpt-4o',
  usage: {
    prompt_tokens: 10,
    completion_tokens: 5,
    total_tokens: 15,
    prompt_tokens_details: { cached_tokens: 5_000_000 },
  },
  source: 'issue #32 item 6',
};

/** 90,000 cache-write tokens on a 100-token prompt (OpenRouter shape). */
export const IMPOSSIBLE_CACHE_WRITE: UsageExample = {
  name: 'Impossible: 90,000 cache writes of a 100-token prompt (claude-sonnet-4.5)',
  model: 'anthropic/claude-sonnet-4.5',
  usage: {
    prompt_tokens: 100,
    completion_tokens: 5,
    total_tokens: 105,
    prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 90000 },
  },
  source: 'issue #32 item 6',
};

/** Reasoning larger than a completion that (by total_tokens) contains it. */
export const IMPOSSIBLE_REASONING: UsageExample = {
  name: 'Impossible: 4,000 reasoning inside a 5-token completion (gpt-4o)',
  model: 'openai/gpt-4o',
  usage: {
    prompt_tokens: 10,
    completion_tokens: 5,
    total_tokens: 15,
    completion_tokens_details: { reasoning_tokens: 4000 },
  },
  source: 'issue #32 item 6',
};

export const USAGE_EXAMPLES: UsageExample[] = [
  OPEN_WEBUI_MERGED,
  LITELLM_ANTHROPIC_CACHE,
  GATEWAY_ANTHROPIC_TOP_LEVEL,
  STALE_GATEWAY_CACHED,
  OPEN_WEBUI_MERGED_STALE_GATEWAY,
  OPEN_WEBUI_MERGED_ANTHROPIC_NATIVE,
  BEDROCK_GATEWAY_CACHE_READ,
  BEDROCK_GATEWAY_CACHE_READ_WRITE,
  LITELLM_BEDROCK_WRITES_BESIDE,
  XAI_REASONING_OUTSIDE,
  GEMINI_HIDDEN_THINKING,
  GEMINI_REASONING_OUTSIDE,
  DEEPSEEK_CACHE,
  PERPLEXITY_SONAR_PRO,
  PERPLEXITY_DEEP_RESEARCH,
  PERPLEXITY_DEEP_RESEARCH_COST,
  IMPOSSIBLE_CACHED,
  IMPOSSIBLE_CACHE_WRITE,
  IMPOSSIBLE_REASONING,
];
