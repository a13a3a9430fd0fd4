import type { ChatMessage } from './chat-message.js';

/** The `user` object Open WebUI sends with every inlet/outlet: `{id, email, name, role}` (+ optional `valves`). */
export interface PipelineUser {
  id?: string;
  email?: string;
  name?: string;
  role?: string;
  /** The user's Open WebUI groups (sent by the generated Function, or read from Open WebUI on the Pipelines path). */
  groups?: Array<{ id: string; name?: string }>;
  valves?: Record<string, unknown>;
  [key: string]: unknown;
}

/**
 * An Open WebUI request or response body: OpenAI-style chat plus Open WebUI keys; unknown keys preserved.
 * The HTTP boundary checks `messages` (`chatMessageSchema`) before any filter sees the body.
 */
export type FilterBody = Record<string, unknown> & { messages?: ChatMessage[]; model?: unknown; metadata?: unknown };
