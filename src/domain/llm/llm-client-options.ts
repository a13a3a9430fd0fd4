/** How to reach one OpenAI-compatible endpoint (OpenAI, OpenRouter, Ollama `/v1`, vLLM). */
export interface LlmClientOptions {
  /** e.g. `https://api.openai.com/v1` or `http://localhost:11434/v1`; `/chat/completions` is appended. */
  baseUrl: string;
  /** Bearer key; empty for local servers. Never logged. */
  apiKey?: string;
  /** Chat model for summaries and labels. */
  model: string;
  /** Embedding model (defaults to `model`). */
  embeddingModel?: string;
  /** Extra JSON merged into every chat request body (e.g. `{"provider": {...}}`). */
  extraBody?: Record<string, unknown>;
  /** Deadline of one attempt, ms. */
  timeoutMs?: number;
  /** Retries after the first attempt on 429, 5xx and network errors. */
  retries?: number;
  /** First backoff delay, ms (doubles each retry, with jitter). */
  backoffMs?: number;
  /** Longest single wait between attempts, ms; a longer Retry-After is cut to it. */
  maxRetryDelayMs?: number;
  /** Calls in flight at once through this client. */
  concurrency?: number;
}

/** Options with every default filled in. */
export type ResolvedLlmClientOptions = Required<Omit<LlmClientOptions, 'apiKey' | 'extraBody' | 'embeddingModel'>> &
  Pick<LlmClientOptions, 'apiKey' | 'extraBody'> & { embeddingModel: string };

/** Defaults: 20 s per attempt, 2 retries, 500 ms backoff, at most 10 s between tries, 4 calls at once. */
export function resolveLlmClientOptions(options: LlmClientOptions): ResolvedLlmClientOptions {
  return {
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    apiKey: options.apiKey || undefined,
    model: options.model,
    embeddingModel: options.embeddingModel || options.model,
    extraBody: options.extraBody,
    timeoutMs: options.timeoutMs ?? 20_000,
    retries: Math.max(0, options.retries ?? 2),
    backoffMs: options.backoffMs ?? 500,
    maxRetryDelayMs: options.maxRetryDelayMs ?? 10_000,
    concurrency: Math.max(1, options.concurrency ?? 4),
  };
}

/** Parses the extra-body valve (a JSON object string); empty or invalid gives undefined. */
export function parseExtraBody(text: string): Record<string, unknown> | undefined {
  if (!text.trim()) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
