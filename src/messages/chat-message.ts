import { z } from 'zod';

/**
 * The OpenAI / Open WebUI chat message, defined once. `ChatMessage` is what the HTTP boundary
 * guarantees (`chatMessageSchema` checks it); `LooseMessage` is the view the engine takes of
 * messages nobody checked (the CLI, benches, planner input), where every field may be anything.
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

/**
 * Lenient check of one message, as strict as the HTTP boundary can be without refusing what
 * clients send: a string `role`; `content` a string, null or an array; `tool_calls` an array
 * or null; `name` and `tool_call_id` strings; every field but `role` optional, unknown keys
 * kept. Array entries (parts, calls) are not checked: code reading them checks each one.
 * Used with `safeParse` only to check: the message itself is passed on, never the parse output.
 */
export const chatMessageSchema = z.looseObject({
  role: z.string(),
  content: z.union([z.string(), z.null(), z.array(z.unknown())]).optional(),
  name: z.string().optional(),
  tool_calls: z.array(z.unknown()).nullish(),
  tool_call_id: z.string().optional(),
});

/** The first message of `messages` that is not a `ChatMessage`, with the reason; undefined when all are. */
export function firstInvalidMessage(
  messages: readonly unknown[],
): { index: number; issues: z.core.$ZodIssue[] } | undefined {
  for (let index = 0; index < messages.length; index += 1) {
    const parsed = chatMessageSchema.safeParse(messages[index]);
    if (!parsed.success) return { index, issues: parsed.error.issues };
  }
  return undefined;
}

/** True for a `ChatMessage` (the same check as the HTTP boundary's). */
export function isChatMessage(value: unknown): value is ChatMessage {
  return chatMessageSchema.safeParse(value).success;
}

/** True for a `{type: 'text', text}` part. */
export function isTextPart(part: unknown): part is TextPart {
  return (
    typeof part === 'object' &&
    part !== null &&
    (part as OtherPart).type === 'text' &&
    typeof (part as OtherPart).text === 'string'
  );
}
