import type { ChatMessage } from './chat-message.js';

/** The `user` object Open WebUI sends with every inlet/outlet: `{id, email, name, role}` (+ optional `valves`, `groups`). */
export interface PipelineUser {
  id?: string;
  email?: string;
  name?: string;
  role?: string;
  /**
   * The user's Open WebUI groups: the generated Function sends them with each call; on the Pipelines connection the
   * host fills them from Open WebUI's API when `OPENWEBUI_URL` and `OPENWEBUI_API_KEY` are set.
   */
  groups?: Array<{ id: string; name?: string }>;
  valves?: Record<string, unknown>;
  [key: string]: unknown;
}

/**
 * An Open WebUI request or response body: OpenAI-style chat plus Open WebUI keys; unknown keys preserved.
 * The HTTP boundary checks `messages` (`chatMessageSchema`) before any filter sees the body.
 */
export type FilterBody = Record<string, unknown> & { messages?: ChatMessage[]; model?: unknown; metadata?: unknown };
