import { type ChatMessage, isRecord } from '../../../core/messages/chat-message.js';
import { stripContextNotes } from '../../../domain/notes/context-note-line.js';
import type { FilterBody } from '../../../runtime/host/types.js';

/** The chat this inlet plans: its messages without earlier context notes, and its model. */
export interface ChatToPlan {
  messages: ChatMessage[];
  model: string | undefined;
}

/**
 * Reads the request: Open WebUI background tasks (titles, tags) and requests without messages are not planned
 * (undefined: the body passes untouched).
 */
export function readChat(body: FilterBody): ChatToPlan | undefined {
  const task = isRecord(body.metadata) ? body.metadata.task : undefined;
  if (task) return undefined;
  if (!Array.isArray(body.messages) || body.messages.length === 0) return undefined;
  return {
    messages: stripContextNotes(body.messages),
    model: typeof body.model === 'string' ? body.model : undefined,
  };
}
