import type { z } from 'zod';
import type { ChatMessage } from '../../core/messages/chat-message.js';
import type { SseFrames } from '../../core/messages/sse-frames.js';
import type { AnyValvesSchema, FilterBody, FilterDefinition, LifecycleArgs, RequestArgs } from './types.js';

/** The single argument of `pipe()`. New fields are added here, never as positional arguments. */
export interface PipeArgs<V, U> extends RequestArgs<V, U> {
  /** The whole request body as the client sent it (unknown keys kept; Open WebUI adds `user`). */
  body: FilterBody;
  messages: ChatMessage[];
  /** Text of the last `user` message (the first text part when its content is a list). */
  userMessage: string | undefined;
  /** The pipe's id, or for a manifold the child id (`openai-proxy.gpt-4o` → `gpt-4o`). */
  modelId: string;
  /** The model id as requested (`openai-proxy.gpt-4o`). */
  model: string;
  /** Whether the client asked for a stream (`stream` defaults to true). */
  stream: boolean;
  pipeId: string;
}

/**
 * One item a streaming pipe yields: text, a chunk object (sent as is), a raw `data: …` SSE line,
 * bytes, or already framed SSE events (`SseFrames`, a relaying pipe's fast path).
 */
export type PipeChunk = string | Uint8Array | Record<string, unknown> | SseFrames;

/** What `pipe()` may return (or resolve to). */
export type PipeResult = string | Record<string, unknown> | AsyncIterable<PipeChunk> | Iterable<PipeChunk>;

/** One model of a manifold: listed as `<pipe id>.<id>`, named `<pipe name><name>`. */
export interface ManifoldModel {
  id: string;
  name?: string;
}

type Infer<S> = S extends z.ZodType ? z.infer<S> : Record<string, never>;

/**
 * What a pipe file's default export describes (made with `definePipe`). A pipe is a model:
 * `POST /chat/completions` with its id calls `pipe()`. With `models` it is a manifold.
 */
export interface PipeDefinition<
  V extends AnyValvesSchema = AnyValvesSchema,
  U extends AnyValvesSchema | undefined = undefined,
> extends Omit<FilterDefinition<V, U>, 'flags'> {
  /** Set by `definePipe`: tells the loader this file is a pipe, not a filter. */
  kind: 'pipe';
  /** Manifold children, or a function returning them (sync or async; cached, see `modelsTtlMs`). */
  models?: ManifoldModel[] | ((args: LifecycleArgs<Infer<V>>) => ManifoldModel[] | Promise<ManifoldModel[]>);
  /**
   * How long a `models()` answer is served before it is refreshed in the background (default 60 s), or a function of
   * the pipe's valves giving it (a valve of its own, like the `openai-proxy`'s `models_ttl_ms`).
   */
  modelsTtlMs?: number | ((valves: Infer<V>) => number);
  pipe(args: PipeArgs<Infer<V>, Infer<U>>): PipeResult | Promise<PipeResult>;
}

/** The untyped view the host keeps of any pipe definition. */
export type AnyPipeDefinition = PipeDefinition<AnyValvesSchema, AnyValvesSchema | undefined>;
