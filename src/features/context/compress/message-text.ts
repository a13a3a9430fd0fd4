import { isRecord, looseMessage } from '../../../core/messages/chat-message.js';

/** Plain text of an OpenAI-format message: string content, text parts, tool calls by name and arguments. */
export function transcriptText(message: unknown): string {
  const typed = looseMessage(message);
  if (!typed) return '';
  const parts: string[] = [];
  if (typeof typed.content === 'string') parts.push(typed.content);
  else if (Array.isArray(typed.content)) {
    for (const part of typed.content) {
      if (typeof part === 'string') parts.push(part);
      else if (isRecord(part) && typeof part.text === 'string') parts.push(part.text);
      else if (isRecord(part) && 'image_url' in part) parts.push('[image]');
    }
  }
  if (Array.isArray(typed.tool_calls)) {
    for (const call of typed.tool_calls) {
      const fn = isRecord(call) && isRecord(call.function) ? call.function : undefined;
      parts.push(`[tool call ${String(fn?.name ?? '')}(${String(fn?.arguments ?? '')})]`);
    }
  }
  return parts.join('\n');
}

/** Role of an OpenAI-format message, or `unknown`. */
export function messageRole(message: unknown): string {
  const role = looseMessage(message)?.role;
  return typeof role === 'string' ? role : 'unknown';
}

/** Messages rendered one per paragraph as `[ROLE]: text`. */
export function renderTranscript(messages: readonly unknown[]): string {
  return messages.map((message) => `[${messageRole(message).toUpperCase()}]: ${transcriptText(message)}`).join('\n\n');
}
