import { z } from 'zod';
import { errorMessage } from '../../core/util/error-message.js';

/** Admin valves of the `openai-proxy` manifold. */
export const proxyValves = z.object({
  base_url: z
    .string()
    .default('https://openrouter.ai/api/v1')
    .describe('OpenAI-compatible API base URL (OpenRouter, https://api.openai.com/v1, vLLM, Ollama …/v1, LiteLLM)'),
  api_key: z
    .string()
    .default('')
    .meta({ secret: true })
    .describe('Upstream API key (empty: OPENAI_PROXY_API_KEY from the environment, or none for local servers)'),
  models: z
    .string()
    .default('')
    .describe("Comma list of upstream model ids to offer (empty: the upstream's /models, cached)"),
  name_prefix: z
    .string()
    .default('')
    .describe('Put before each model name, after the manifold\'s "Proxy: " (e.g. "OR: " shows "Proxy: OR: GPT-4o")'),
  extra_body: z
    .string()
    .default('{}')
    .describe('JSON object merged into every upstream request (e.g. {"provider": {"sort": "price"}})'),
  cache_control: z
    .boolean()
    .default(false)
    .describe(
      "Anthropic models only (anthropic/… or claude…): mark the end of the prompt's stable prefix (from the context filter with a cache-ordered algorithm) with cache_control, so the provider caches it",
    ),
  connect_timeout_ms: z.number().int().positive().default(10_000).describe('Connecting to the upstream'),
  first_byte_timeout_ms: z
    .number()
    .int()
    .positive()
    .default(120_000)
    .describe('Waiting for the upstream to answer (response headers)'),
  idle_timeout_ms: z
    .number()
    .int()
    .positive()
    .default(120_000)
    .describe('Longest silence between two pieces of a streamed answer'),
  models_ttl_ms: z
    .number()
    .int()
    .nonnegative()
    .default(300_000)
    .describe("How long the upstream's /models list is kept"),
});

export type ProxyValves = z.infer<typeof proxyValves>;

/** The `extra_body` valve as an object (an invalid or non-object value is an error naming the valve). */
export function extraBody(valves: ProxyValves): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(valves.extra_body || '{}');
  } catch (error) {
    throw new Error(`openai-proxy: extra_body is not JSON (${errorMessage(error)})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error('openai-proxy: extra_body must be a JSON object');
  return parsed as Record<string, unknown>;
}

/** The API key to send: the valve, else OPENAI_PROXY_API_KEY. */
export const apiKeyOf = (valves: ProxyValves): string => valves.api_key || process.env.OPENAI_PROXY_API_KEY || '';

/** True when the upstream is OpenRouter (it returns `usage.cost` when asked with `usage: {include: true}`). */
export const isOpenRouter = (baseUrl: string): boolean => /(^|\.)openrouter\.ai$/i.test(safeHost(baseUrl));

function safeHost(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}
