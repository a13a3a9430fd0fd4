import { lastUserMessage } from '../../../core/messages/last-user-message.js';

/**
 * The history as the next inlet will most likely see it: this turn's messages with the
 * reply, plus a stand-in for the next question (a copy of the last user message, so the
 * budget arithmetic is close; it is always kept, never summarized).
 */
export function nextTurnMessages(messages: readonly unknown[]): unknown[] {
  const last = lastUserMessage(messages);
  const standIn = { role: 'user', content: last?.content ?? '' };
  return [...messages, standIn];
}
