import type { FilterBody } from './request.js';
import type { ChatMessage } from './chat-message.js';

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

/**
 * The messages with `pattern` (a line a filter appended, e.g. a usage line or a context note)
 * removed from assistant replies: Open WebUI saves the outlet's reply and resends it, and the
 * model should neither pay for nor imitate such lines. The same array when nothing matched;
 * changed messages are copies.
 */
export function stripFromReplies<M>(messages: M[], pattern: RegExp): M[] {
  let changed = false;
  const stripped = messages.map((message) => {
    const typed = message as { role?: unknown; content?: unknown } | null;
    if (typed?.role !== 'assistant' || typeof typed.content !== 'string' || !pattern.test(typed.content))
      return message;
    changed = true;
    return { ...typed, content: typed.content.replace(pattern, '') } as M;
  });
  return changed ? stripped : messages;
}
