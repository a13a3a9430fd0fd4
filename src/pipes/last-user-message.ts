import type { ChatMessage } from '../messages/chat-message.js';

/** Text of the last `user` message: its string content, or the first `text` part of a list. */
export function lastUserMessage(messages: readonly ChatMessage[]): string | undefined {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index]!;
    if (message.role !== 'user') continue;
    if (typeof message.content === 'string') return message.content;
    if (!Array.isArray(message.content)) return undefined;
    const part = message.content.find((item) => item?.type === 'text' && typeof item.text === 'string');
    return part ? String(part.text) : undefined;
  }
  return undefined;
}
