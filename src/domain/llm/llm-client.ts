import type { Dispatcher } from 'undici';
import { loadUndici } from '../../core/util/load-undici.js';
import { ConcurrencyLimit } from './concurrency-limit.js';
import { LlmError, redact } from './llm-errors.js';
import { resolveLlmClientOptions, type LlmClientOptions, type ResolvedLlmClientOptions } from './llm-client-options.js';
import { retryAfterMs, retryDelayMs, sleep } from './retry-delay.js';
import { timeoutSignal } from '../../core/util/timeout-signal.js';
import { errorMessage } from '../../core/util/error-message.js';

/** One chat message of the wire format. */
export interface LlmMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** undici's `request` with this client's connection pool. */
interface Http {
  request: typeof import('undici').request;
  dispatcher: Dispatcher;
}

/** Reasoning models (qwen3, deepseek-r1 on Ollama) may prefix their answer with a think block. */
const THINK_BLOCK = /<think>[\s\S]*?<\/think>/g;

/**
 * A small OpenAI-compatible client on undici: chat completions and embeddings, a deadline
 * per attempt, bounded retries on 429/5xx/network errors (honouring Retry-After), a
 * concurrency limit and caller cancellation. Errors are `LlmError`s without the key.
 */
export class LlmClient {
  readonly options: ResolvedLlmClientOptions;
  private readonly limit: ConcurrencyLimit;
  /** undici's `request` and the connection pool, made at the first call (undici is imported then). */
  private http: Promise<Http> | undefined;

  constructor(options: LlmClientOptions) {
    this.options = resolveLlmClientOptions(options);
    this.limit = new ConcurrencyLimit(this.options.concurrency);
  }

  private client(): Promise<Http> {
    this.http ??= loadUndici().then(({ request, Agent }) => ({
      request,
      dispatcher: new Agent({ keepAliveTimeout: 10_000, connections: this.options.concurrency * 2 }),
    }));
    return this.http;
  }

  /** The assistant text of one chat completion (think blocks removed, trimmed; may be empty). */
  async chat(input: {
    messages: LlmMessage[];
    maxTokens?: number;
    temperature?: number;
    signal?: AbortSignal;
  }): Promise<string> {
    const body = {
      model: this.options.model,
      messages: input.messages,
      temperature: input.temperature ?? 0,
      ...(input.maxTokens ? { max_tokens: input.maxTokens } : {}),
      ...this.options.extraBody,
      stream: false,
    };
    const json = (await this.post('/chat/completions', body, input.signal)) as {
      choices?: Array<{ message?: { content?: unknown } }>;
    };
    const content = json?.choices?.[0]?.message?.content;
    if (typeof content !== 'string')
      throw new LlmError('response', 'model answer has no choices[0].message.content string');
    return content.replace(THINK_BLOCK, '').trim();
  }

  /** One embedding vector per input text, in input order. */
  async embed(input: { texts: string[]; signal?: AbortSignal }): Promise<number[][]> {
    if (input.texts.length === 0) return [];
    const json = (await this.post(
      '/embeddings',
      { model: this.options.embeddingModel, input: input.texts },
      input.signal,
    )) as { data?: Array<{ index?: number; embedding?: unknown }> };
    const data = Array.isArray(json?.data) ? json.data : [];
    const vectors: number[][] = new Array(input.texts.length);
    data.forEach((item, position) => {
      const index = typeof item?.index === 'number' ? item.index : position;
      if (Array.isArray(item?.embedding) && item.embedding.every((value) => typeof value === 'number'))
        vectors[index] = item.embedding as number[];
    });
    for (let index = 0; index < input.texts.length; index++) {
      if (!vectors[index]) throw new LlmError('response', `embeddings answer lacks a vector for input ${index}`);
    }
    return vectors;
  }

  /** Closes pooled connections. */
  async close(): Promise<void> {
    await (await this.http)?.dispatcher.close();
  }

  /** POSTs JSON with retries; returns the parsed JSON answer. */
  private async post(path: string, body: unknown, signal?: AbortSignal): Promise<unknown> {
    const { retries, backoffMs, maxRetryDelayMs } = this.options;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.limit.run(() => this.attempt(path, body, signal), signal);
      } catch (error) {
        const failure = this.asLlmError(error, signal, attempt);
        if (!failure.retryable || attempt > retries) throw failure;
        const wait = retryDelayMs(attempt, {
          baseMs: backoffMs,
          maxMs: maxRetryDelayMs,
          retryAfter: failure.retryAfterMs,
        });
        await sleep(wait, signal).catch(() => {
          throw new LlmError('aborted', 'model call cancelled by the caller', undefined, attempt);
        });
      }
    }
  }

  /** One HTTP attempt under the per-attempt deadline. */
  private async attempt(path: string, body: unknown, signal?: AbortSignal): Promise<unknown> {
    const http = await this.client(); // before the deadline: undici's first import is not the model's time
    const deadline = timeoutSignal(this.options.timeoutMs, signal);
    try {
      return await this.send(http, path, body, deadline.signal);
    } finally {
      deadline.clear();
    }
  }

  /** The POST itself, JSON in and out; a non-2xx answer or a body that is not JSON is an LlmError. */
  private async send(
    { request, dispatcher }: Http,
    path: string,
    body: unknown,
    signal: AbortSignal,
  ): Promise<unknown> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    const response = await request(`${this.options.baseUrl}${path}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      signal,
      dispatcher,
    });
    const text = await response.body.text();
    if (response.statusCode < 200 || response.statusCode >= 300) {
      const detail = redact(text.slice(0, 300), this.options.apiKey).replace(/\s+/g, ' ');
      throw new LlmError(
        'http',
        `model API answered ${response.statusCode} on ${path}: ${detail}`,
        response.statusCode,
        1,
        retryAfterMs(response.headers['retry-after']),
      );
    }
    try {
      return JSON.parse(text);
    } catch {
      throw new LlmError('response', `model API answered non-JSON on ${path}`, response.statusCode);
    }
  }

  /** Any thrown value as an LlmError, telling timeouts from caller aborts. */
  private asLlmError(error: unknown, signal: AbortSignal | undefined, attempt: number): LlmError {
    if (error instanceof LlmError) {
      error.attempts = attempt;
      return error;
    }
    if (signal?.aborted) return new LlmError('aborted', 'model call cancelled by the caller', undefined, attempt);
    const name = (error as Error)?.name;
    if (name === 'TimeoutError' || name === 'AbortError')
      return new LlmError('timeout', `model call timed out after ${this.options.timeoutMs} ms`, undefined, attempt);
    const message = redact(String(errorMessage(error) ?? error), this.options.apiKey);
    return new LlmError('network', `model API unreachable: ${message}`, undefined, attempt);
  }
}
