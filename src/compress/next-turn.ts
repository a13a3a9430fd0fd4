import { contentText, newestUserIndex } from '../engine/index.js';
import { looseMessage, type LooseMessage } from '../messages/chat-message.js';

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

/** The newest user message, if any. */
function lastUserMessage(messages: readonly unknown[]): LooseMessage | undefined {
  return looseMessage(messages[newestUserIndex(messages)]);
}

/** Text of the newest user message (the query scorers rank against). */
export function lastUserText(messages: readonly unknown[]): string {
  return contentText(lastUserMessage(messages)?.content);
}
