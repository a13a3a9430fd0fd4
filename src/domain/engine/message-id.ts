import * as crypto from 'node:crypto';
import { memoisedHash } from './content-hash-memo.js';
import { hashesWithListMemo } from './cache/list-hash-memo.js';
import { TwoGenerationMap } from './cache/two-generation-map.js';
import { isRecord, type LooseMessage } from '../../core/messages/chat-message.js';

/** One-shot hashing (`crypto.hash`, Node ≥ 20.12) is several times faster than createHash per message. */
const sha256 =
  typeof crypto.hash === 'function'
    ? (text: string) => crypto.hash('sha256', text, 'base64url')
    : (text: string) => crypto.createHash('sha256').update(text).digest('base64url');

/** The text an id is derived from: text parts joined; image parts by URL and detail; tool call ids, names and arguments. */
function identityText(message: LooseMessage): string {
  const role = String(message.role ?? '');
  const name = typeof message.name === 'string' ? message.name : '';
  const content = message.content;
  // Fast path for the common plain-text message: the same string as the join below, without the array.
  if (typeof content === 'string' && !Array.isArray(message.tool_calls) && typeof message.tool_call_id !== 'string')
    return `${role}\u0000${name}\u0000${content}`;
  const parts: string[] = [role, name];
  if (typeof content === 'string') parts.push(content);
  else if (Array.isArray(content)) {
    for (const part of content) {
      if (isRecord(part)) {
        const image = part.image_url;
        if (typeof part.text === 'string') parts.push(part.text);
        else if (isRecord(image)) {
          // The detail level changes the image's token count, so it is part of the identity.
          parts.push(`${String(image.url ?? '')}${image.detail === undefined ? '' : `#${String(image.detail)}`}`);
        } else parts.push(JSON.stringify(part));
      } else parts.push(String(part));
    }
  }
  if (Array.isArray(message.tool_calls)) {
    // Arguments are part of the identity: backends that reuse call ids (`call_0`) must not share a
    // token count, pin or summary between calls with different arguments.
    for (const call of message.tool_calls) {
      const fields = isRecord(call) ? call : undefined;
      const fn = isRecord(fields?.function) ? fields.function : undefined;
      const args = fn?.arguments;
      parts.push(
        `call:${String(fields?.id ?? '')}:${String(fn?.name ?? '')}:${typeof args === 'string' ? args : JSON.stringify(args ?? null)}`,
      );
    }
  }
  if (typeof message.tool_call_id === 'string') parts.push(`result:${message.tool_call_id}`);
  return parts.join('\u0000');
}

/** Content hash of one message: stable across requests when Open WebUI resends the history. */
export function contentHash(message: LooseMessage): string {
  return memoisedHash(message, hashOf);
}

/** The uncached hash: sha256 of the identity text, 16 base64url characters. */
function hashOf(message: LooseMessage): string {
  return sha256(identityText(message)).slice(0, 16);
}

/**
 * Stable ids for a message list: the content hash, plus `~n` for the n-th repeat of the
 * same content (two "ok" replies stay distinct, and keep their ids on the next turn because
 * Open WebUI only appends). Compute ids on messages whose flag blocks are already stripped.
 */
export function messageIds(messages: readonly LooseMessage[]): string[] {
  const hashes = hashesWithListMemo(messages, contentHash);
  // Keyed like the hash memo: the first two messages, so chats that share a system prompt keep their own entries.
  const first = hashes.length === 0 ? undefined : `${hashes[0]}\u0000${hashes[1] ?? ''}`;
  const previous = first === undefined ? undefined : idMemo.get(first);
  let same = 0;
  if (previous) {
    const limit = Math.min(previous.hashes.length, hashes.length);
    while (same < limit && previous.hashes[same] === hashes[same]) same += 1;
  }
  // The list seen last time is a prefix of this one (Open WebUI appends): its ids and repeat counts carry over.
  const extends_ = previous !== undefined && same === previous.hashes.length;
  const seen = extends_ ? previous.seen : new Map<string, number>();
  const ids = extends_ ? previous.ids : [];
  for (let index = extends_ ? same : 0; index < hashes.length; index += 1) {
    const hash = hashes[index]!;
    const count = seen.get(hash) ?? 0;
    seen.set(hash, count + 1);
    ids.push(count === 0 ? hash : `${hash}~${count}`);
  }
  if (first !== undefined) idMemo.set(first, { hashes, ids, seen });
  return ids.slice();
}

/** The ids of the last list seen per first two messages (about one per active chat), and the repeat counts behind them. */
const idMemo = new TwoGenerationMap<string, { hashes: readonly string[]; ids: string[]; seen: Map<string, number> }>(
  128,
);
