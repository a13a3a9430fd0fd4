import { isRecord, looseMessage, type LooseMessage } from '../../messages/chat-message.js';

export type { LooseMessage };

/** Text parts of a message's content joined by newlines; image parts are skipped. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const texts: string[] = [];
  for (const part of content) {
    if (typeof part === 'string') texts.push(part);
    else if (isRecord(part) && typeof part.text === 'string') texts.push(part.text);
  }
  return texts.join('\n');
}

/** Scoring text of a message: content text plus tool call names and arguments. */
export function scoringText(message: LooseMessage): string {
  const text = contentText(message.content);
  if (!Array.isArray(message.tool_calls) || message.tool_calls.length === 0) return text;
  const calls = message.tool_calls.map((call) => {
    const fn = isRecord(call) && isRecord(call.function) ? call.function : undefined;
    return `${String(fn?.name ?? '')} ${typeof fn?.arguments === 'string' ? fn.arguments : ''}`;
  });
  return text ? `${text}\n${calls.join('\n')}` : calls.join('\n');
}

/** Index of the newest user message (tool calls and results may follow it); -1 when none. */
export function newestUserIndex(messages: readonly unknown[]): number {
  for (let index = messages.length - 1; index >= 0; index--) {
    if (looseMessage(messages[index])?.role === 'user') return index;
  }
  return -1;
}
