import { isRecord } from './chat-message.js';

/**
 * Where the stable prefix of a prompt ends, handed from the context filter to the pipe that calls the model: the
 * number of leading `messages` expected to repeat in the chat's next prompt, under this key of the body's
 * `metadata`. The `openai-proxy` reads it and never forwards it.
 */
export const STABLE_PREFIX_KEY = 'eunoe_stable_prefix';

/** The body with the stable prefix length in its metadata (a copy; the body's own metadata is not changed). */
export function withStablePrefix(body: Record<string, unknown>, messages: number): Record<string, unknown> {
  const metadata = isRecord(body.metadata) ? body.metadata : {};
  return { ...body, metadata: { ...metadata, [STABLE_PREFIX_KEY]: messages } };
}

/** The stable prefix length the body carries (a positive integer) and the body without it. */
export function takeStablePrefix(body: Record<string, unknown>): {
  body: Record<string, unknown>;
  stablePrefix?: number;
} {
  if (!isRecord(body.metadata) || !(STABLE_PREFIX_KEY in body.metadata)) return { body };
  const { [STABLE_PREFIX_KEY]: value, ...metadata } = body.metadata;
  const { metadata: _, ...others } = body;
  const rest: Record<string, unknown> = Object.keys(metadata).length > 0 ? { ...others, metadata } : others;
  const valid = typeof value === 'number' && Number.isInteger(value) && value > 0;
  return valid ? { body: rest, stablePrefix: value } : { body: rest };
}

/** Anthropic's models, through OpenRouter (`anthropic/…`) or named directly (`claude…`): they take `cache_control`. */
export function takesCacheControl(model: string): boolean {
  return /^anthropic\//i.test(model) || /^claude/i.test(model);
}

type Part = Record<string, unknown>;

/** The content as parts with `cache_control` on the last one, or undefined when it has no text to mark. */
function markedContent(content: unknown): Part[] | undefined {
  if (typeof content === 'string')
    return content.length > 0 ? [{ type: 'text', text: content, cache_control: { type: 'ephemeral' } }] : undefined;
  if (!Array.isArray(content) || content.length === 0 || !isRecord(content.at(-1))) return undefined;
  const parts = content.map((part) => (isRecord(part) ? { ...part } : part)) as Part[];
  parts[parts.length - 1] = { ...parts.at(-1)!, cache_control: { type: 'ephemeral' } };
  return parts;
}

/**
 * Anthropic's explicit prompt-cache breakpoint: `cache_control: {"type": "ephemeral"}` on the last content part of
 * the last message of the stable prefix (its content becomes an array of parts, as Anthropic and OpenRouter
 * document). The first `stablePrefix` messages are the prefix; a message there with nothing to mark (a tool call
 * without text) passes the mark to the one before it. Returns new messages; the given ones are not changed.
 */
export function markCacheBreakpoint(messages: readonly unknown[], stablePrefix: number): unknown[] {
  const out = [...messages];
  for (let index = Math.min(stablePrefix, messages.length) - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (!isRecord(message)) continue;
    const content = markedContent(message.content);
    if (!content) continue;
    out[index] = { ...message, content };
    return out;
  }
  return out;
}
