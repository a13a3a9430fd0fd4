/**
 * The OpenAI / Open WebUI chat message, defined once. `ChatMessage` is what the HTTP boundary
 * guarantees (`chatMessageSchema`, in `chat-message-schema.ts`, checks it); `LooseMessage` is the
 * view the engine takes of messages nobody checked (the CLI, benches, planner input), where every
 * field may be anything. No runtime dependency: the engine imports this file.
 */

/** Roles OpenAI and Open WebUI send; other strings are accepted and kept. */
export type ChatRole = 'system' | 'developer' | 'user' | 'assistant' | 'tool' | 'function';

/** `{type: 'text', text}`. */
export interface TextPart {
  type: 'text';
  text: string;
  [key: string]: unknown;
}

/** `{type: 'image_url', image_url: {url, detail?}}`: `url` is an https or `data:` URL. */
export interface ImagePart {
  type: 'image_url';
  image_url: { url: string; detail?: string; [key: string]: unknown };
  [key: string]: unknown;
}

/** Any other part (`input_audio`, `file`, …): kept as sent. Parts are not checked at the boundary. */
export interface OtherPart {
  type?: unknown;
  [key: string]: unknown;
}

export type ContentPart = TextPart | ImagePart | OtherPart;

/** One call in an assistant message's `tool_calls`. Ollama-style backends send `arguments` as an object. */
export interface ToolCall {
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: unknown; [key: string]: unknown };
  [key: string]: unknown;
}

/**
 * A chat message as Open WebUI and OpenAI clients send it. `content` is null on assistant
 * messages that only call tools. Open WebUI's own fields (`id`, `timestamp`, `info`, `usage`,
 * `files`, …) are kept as sent.
 */
export interface ChatMessage {
  role: ChatRole | (string & {});
  content?: string | ContentPart[] | null;
  name?: string;
  tool_calls?: ToolCall[] | null;
  tool_call_id?: string;
  [key: string]: unknown;
}

/** The fields a message's id, text and role checks read, none of them checked. `ChatMessage` is one. */
export interface LooseMessage {
  role?: unknown;
  content?: unknown;
  name?: unknown;
  tool_calls?: unknown;
  tool_call_id?: unknown;
}

/** True for a non-null object (arrays included): its fields can be read, each one `unknown`. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** `value`'s message fields when it is an object (none of them checked), else undefined. */
export function looseMessage(value: unknown): LooseMessage | undefined {
  return isRecord(value) ? value : undefined;
}

/** True for a `{type: 'text', text}` part. */
export function isTextPart(part: unknown): part is TextPart {
  return isRecord(part) && part.type === 'text' && typeof part.text === 'string';
}
