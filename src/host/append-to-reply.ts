import type { FilterBody } from './types.js';
import type { ChatMessage } from '../messages/chat-message.js';

/**
 * Append a line to the last assistant message of an outlet body, returning a new body.
 * Everything Open WebUI needs stays as it was: `chat_id`, `id`, `session_id`, every
 * message's `id` and other fields. Multimodal content gets a text part appended.
 */
export function appendToReply(body: FilterBody, line: string): FilterBody {
  if (!Array.isArray(body.messages) || !line) return body;
  const messages = [...body.messages];
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message?.role !== 'assistant') continue;
    const content = message.content;
    let next: ChatMessage['content'];
    if (typeof content === 'string') next = content ? `${content}\n\n${line}` : line;
    else if (Array.isArray(content)) next = [...content, { type: 'text', text: `\n\n${line}` }];
    else next = line;
    messages[index] = { ...message, content: next };
    return { ...body, messages };
  }
  return body;
}
