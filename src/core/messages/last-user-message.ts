import { isRecord, looseMessage, type LooseMessage } from './chat-message.js';

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

/** Index of the newest user message (tool calls and results may follow it); -1 when none. */
export function newestUserIndex(messages: readonly unknown[]): number {
  for (let index = messages.length - 1; index >= 0; index--) {
    if (looseMessage(messages[index])?.role === 'user') return index;
  }
  return -1;
}

/** The newest user message (the question of the turn), if any. */
export function lastUserMessage(messages: readonly unknown[]): LooseMessage | undefined {
  return looseMessage(messages[newestUserIndex(messages)]);
}

/** Text of the newest user message (its text parts joined); undefined when there is none. */
export function lastUserText(messages: readonly unknown[]): string | undefined {
  const message = lastUserMessage(messages);
  return message ? contentText(message.content) : undefined;
}
