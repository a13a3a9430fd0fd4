import { isRecord } from '../../../core/messages/chat-message.js';
import type { CompactionSummary, TokenCache } from '../types.js';
import type { EncodingName } from '../tokens/encoding-for-model.js';
import { loadEncoder } from '../tokens/load-encoder.js';
import type { ChatNode } from './chat-node.js';

/**
 * The line Open WebUI's Context Compaction (0.10+, off by default) starts its summary with. When it has compacted a
 * chat, `process_chat_payload` (backend/open_webui/utils/middleware.py) appends
 * `'[CONVERSATION SUMMARY]\n' + summary` to the first message when that is a system message (a newline between, to
 * every text part of a parts list), or inserts `{ role: 'system', content: '[CONVERSATION SUMMARY]\n' + summary }`
 * first; the turns before its checkpoint are no longer in the history. It does so before the Pipelines inlet and
 * Filter Function inlets run, on every later turn of the chat.
 */
export const COMPACTION_SUMMARY_MARKER = '[CONVERSATION SUMMARY]';

/** The summary blocks of one text: from a marker that starts a line and is followed by text, to the text's end. */
function blockOf(text: string): string | undefined {
  let at = text.indexOf(COMPACTION_SUMMARY_MARKER);
  while (at >= 0) {
    const startsLine = at === 0 || text[at - 1] === '\n';
    const after = at + COMPACTION_SUMMARY_MARKER.length;
    if (startsLine && text[after] === '\n' && text.slice(after + 1).trim() !== '') return text.slice(at);
    at = text.indexOf(COMPACTION_SUMMARY_MARKER, after);
  }
  return undefined;
}

/** The summary blocks of a message's content (a string, or the text parts of a parts list). */
function blocksOf(content: unknown): string[] {
  if (typeof content === 'string') {
    const block = blockOf(content);
    return block === undefined ? [] : [block];
  }
  if (!Array.isArray(content)) return [];
  const blocks: string[] = [];
  for (const part of content) {
    const text = typeof part === 'string' ? part : isRecord(part) && typeof part.text === 'string' ? part.text : '';
    const block = blockOf(text);
    if (block !== undefined) blocks.push(block);
  }
  return blocks;
}

/**
 * Open WebUI's conversation summary, when one of the system messages that open the history carries it (a marker in a
 * user's or an assistant's message is theirs, not a summary). Its tokens are cached by the message's id, so a resent
 * history does not count them again.
 */
export function findCompactionSummary(
  nodes: readonly ChatNode[],
  encoding: EncodingName,
  cache: TokenCache | undefined,
  correction: number,
): CompactionSummary | undefined {
  for (const node of nodes) {
    if (!node.isSystem) return undefined;
    const message = node.message;
    const blocks = isRecord(message) ? blocksOf(message.content) : [];
    if (blocks.length === 0) continue;
    const key = `compaction-summary:${encoding}:${node.id}`;
    let raw = cache?.get(key);
    if (raw === undefined) {
      const encoder = loadEncoder(encoding);
      raw = blocks.reduce((sum, block) => sum + encoder.count(block), 0);
      cache?.set(key, raw);
    }
    return { index: node.index, tokens: correction === 1 ? raw : Math.ceil(raw * correction) };
  }
  return undefined;
}
