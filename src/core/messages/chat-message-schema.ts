import { z } from 'zod';
import type { ChatMessage } from './chat-message.js';

/**
 * Lenient check of one message, as strict as the HTTP boundary can be without refusing what
 * clients send: a string `role`; `content` a string, null or an array; `tool_calls` an array
 * or null; `name` and `tool_call_id` strings or null; every field but `role` optional, unknown keys
 * kept. Array entries (parts, calls) are not checked: code reading them checks each one.
 * Used with `safeParse` only to check: the message itself is passed on, never the parse output.
 */
export const chatMessageSchema = z.looseObject({
  role: z.string(),
  content: z.union([z.string(), z.null(), z.array(z.unknown())]).optional(),
  name: z.string().nullish(),
  tool_calls: z.array(z.unknown()).nullish(),
  tool_call_id: z.string().nullish(),
});

const isOptionalString = (value: unknown) => value === undefined || value === null || typeof value === 'string';

/**
 * The same check as `chatMessageSchema` without building its output: a long history is checked
 * on every hook call, and zod copies each object it parses. The schema stays the source of the
 * error details (`firstInvalidMessage` asks it only about a message this rejects).
 */
export function plainlyValid(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const message = value as Record<string, unknown>;
  const content = message.content;
  const calls = message.tool_calls;
  return (
    typeof message.role === 'string' &&
    (content === undefined || content === null || typeof content === 'string' || Array.isArray(content)) &&
    isOptionalString(message.name) &&
    (calls === undefined || calls === null || Array.isArray(calls)) &&
    isOptionalString(message.tool_call_id)
  );
}

/** The first message of `messages` that is not a `ChatMessage`, with the reason; undefined when all are. */
export function firstInvalidMessage(
  messages: readonly unknown[],
): { index: number; issues: z.core.$ZodIssue[] } | undefined {
  for (let index = 0; index < messages.length; index += 1) {
    if (plainlyValid(messages[index])) continue;
    const parsed = chatMessageSchema.safeParse(messages[index]);
    if (!parsed.success) return { index, issues: parsed.error.issues };
  }
  return undefined;
}

/** True for a `ChatMessage` (the same check as the HTTP boundary's). */
export function isChatMessage(value: unknown): value is ChatMessage {
  return plainlyValid(value) || chatMessageSchema.safeParse(value).success;
}
