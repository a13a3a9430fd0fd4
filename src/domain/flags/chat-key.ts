import { createHash } from 'node:crypto';
import { contentHash } from '../engine/message-id.js';
import type { FilterBody, PipelineUser } from '../../core/messages/request.js';
import { isRecord } from '../../core/messages/chat-message.js';

/** Chat ids Open WebUI sends that do not identify one chat (older temporary chats were all `local`). */
const SHARED_IDS = new Set(['local', 'none', 'null', 'undefined']);

function usableId(value: unknown): string | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const id = String(value).trim();
  return id === '' || SHARED_IDS.has(id.toLowerCase()) ? undefined : id;
}

/**
 * Stable key of the chat a body belongs to: `chat:<metadata.chat_id>` (inlet), else
 * `chat:<chat_id>` (outlet bodies carry it top-level), else `derived:<hash>` of the user id and
 * the conversation's first user message (API callers, and the shared `local` id of old
 * temporary chats).
 */
export function chatKey(body: FilterBody, user: PipelineUser | null | undefined): string {
  const metadata = isRecord(body.metadata) ? body.metadata : {};
  const id = usableId(metadata.chat_id) ?? usableId(body.chat_id);
  if (id !== undefined) return `chat:${id}`;
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const firstUser = messages.find((message) => !!message && typeof message === 'object' && message.role === 'user');
  const userId = typeof user?.id === 'string' ? user.id : typeof metadata.user_id === 'string' ? metadata.user_id : '';
  const hash = createHash('sha256')
    .update(`${userId}\u0000${firstUser ? contentHash(firstUser) : ''}`)
    .digest('base64url')
    .slice(0, 22);
  return `derived:${hash}`;
}
