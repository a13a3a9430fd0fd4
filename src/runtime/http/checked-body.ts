import { ValidationError } from '../../core/errors/index.js';
import type { ChatMessage } from '../../core/messages/chat-message.js';
import { firstInvalidMessage } from '../../core/messages/chat-message-schema.js';
import type { FilterBody } from '../../core/messages/request.js';

/** Throws a 400 naming the first entry of `messages` that is not a chat message (`chatMessageSchema`). */
function assertChatMessages(messages: unknown[]): asserts messages is ChatMessage[] {
  const invalid = firstInvalidMessage(messages);
  if (!invalid) return;
  throw new ValidationError(
    `body.messages[${invalid.index}] is not a chat message: ${invalid.reason}`,
    invalid.issues.map((issue) => ({
      path: ['body', 'messages', invalid.index, ...issue.path].join('.'),
      message: issue.message,
    })),
  );
}

/**
 * A hook envelope's body as a `FilterBody` (the Pipelines filter routes and the Open WebUI Function's chain route):
 * `messages`, when present, must be an array of chat messages. Never rewritten.
 */
export function checkedBody(body: Record<string, unknown>): FilterBody {
  const { messages } = body;
  if (messages === undefined) return body;
  if (!Array.isArray(messages)) {
    throw new ValidationError('body.messages must be an array of chat messages', [
      { path: 'body.messages', message: 'expected an array' },
    ]);
  }
  assertChatMessages(messages);
  return { ...body, messages };
}
