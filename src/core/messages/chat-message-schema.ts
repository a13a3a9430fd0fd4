import { z } from 'zod';

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

/** What a value is, in the words of a 400 (`a number`, `null`, `an object`). */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Why `value` is not a chat message, naming the first field at fault (`content must be …, not a number`). */
export function invalidMessageReason(value: unknown): string {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return `a chat message is an object with a string role, not ${kindOf(value)}`;
  const message = value as Record<string, unknown>;
  if (message.role === undefined) return 'role is missing (a string: user, assistant, system, tool…)';
  if (typeof message.role !== 'string') return `role must be a string, not ${kindOf(message.role)}`;
  const { content } = message;
  if (!(content === undefined || content === null || typeof content === 'string' || Array.isArray(content)))
    return `content must be a string, null or an array of content parts, not ${kindOf(content)}`;
  for (const field of ['name', 'tool_call_id'] as const)
    if (!isOptionalString(message[field])) return `${field} must be a string or null, not ${kindOf(message[field])}`;
  return `tool_calls must be an array or null, not ${kindOf(message.tool_calls)}`;
}

/**
 * The first message of `messages` that is not a `ChatMessage`, with the zod issues and a sentence naming the field at
 * fault; undefined when all are.
 */
export function firstInvalidMessage(
  messages: readonly unknown[],
): { index: number; issues: z.core.$ZodIssue[]; reason: string } | undefined {
  for (let index = 0; index < messages.length; index += 1) {
    if (plainlyValid(messages[index])) continue;
    const parsed = chatMessageSchema.safeParse(messages[index]);
    if (!parsed.success) return { index, issues: parsed.error.issues, reason: invalidMessageReason(messages[index]) };
  }
  return undefined;
}
