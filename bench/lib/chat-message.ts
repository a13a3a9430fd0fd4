import type { ChatMessage as Message } from '../../src/core/messages/chat-message.js';

/** The chat messages the benchmarks generate and select from: the one message type, plain text only. */
export type ChatMessage = Message & { role: 'system' | 'user' | 'assistant'; content: string };
