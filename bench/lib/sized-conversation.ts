import type { ChatMessage } from './chat-message.js';
import { generateConversation } from './conversation-generator.js';

/**
 * A generated conversation cut to exactly `length` messages (system prompt included), ending
 * with a user message when `length` is even (index 0 is the system prompt, users sit at odd indices).
 */
export function conversationOfSize(seed: number, length: number): ChatMessage[] {
  const sessions = Math.max(2, Math.ceil(length / 20));
  const { messages } = generateConversation({ seed, sessions, singleFacts: 0, events: 0, pairs: 0, advice: 0 });
  if (messages.length < length) throw new Error(`generated ${messages.length} messages, need ${length}`);
  return messages.slice(0, length);
}
