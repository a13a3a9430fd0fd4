import { messageIds } from '../message-id.js';
import type { ChatNode, Conversation, Unit } from './chat-node.js';
import { scoringText } from './message-text.js';
import { isRecord, type LooseMessage, looseMessage } from '../../../core/messages/chat-message.js';

const SYSTEM_ROLES = new Set(['system', 'developer']);
/** The tool-call ids of the (many) messages without calls: one shared empty list, never written to. */
const NO_CALLS: string[] = [];

/** A node from one raw input message (non-objects become role `unknown`). */
function toNode(raw: unknown, index: number, id: string): ChatNode {
  const message = looseMessage(raw) ?? {};
  const role = typeof message.role === 'string' ? message.role : 'unknown';
  const toolCallIds =
    role === 'assistant' && Array.isArray(message.tool_calls)
      ? message.tool_calls.map((call, n) =>
          isRecord(call) && typeof call.id === 'string' ? call.id : `#${index}:${n}`,
        )
      : NO_CALLS;
  return {
    index,
    id,
    role,
    message: raw,
    isSystem: SYSTEM_ROLES.has(role),
    text: scoringText(message),
    toolCallIds,
    toolCallId: role === 'tool' && typeof message.tool_call_id === 'string' ? message.tool_call_id : undefined,
  };
}

/**
 * Binds tool calls to their results: an assistant message with `tool_calls` and the tool
 * messages that directly follow it and answer every call form one unit. A result with no
 * call there, or a call with no result, is an orphan (a provider would reject it). Ids are the messages' content
 * ids (`messageIds`) unless `knownIds` gives them.
 */
export function parseConversation(messages: readonly unknown[], knownIds?: readonly string[]): Conversation {
  // `knownIds`: the ids of these messages, already computed (a trimmed copy keeps its original's id).
  const ids =
    knownIds ??
    messageIds(
      messages.every(isRecord)
        ? (messages as readonly LooseMessage[])
        : messages.map((raw) => looseMessage(raw) ?? { content: JSON.stringify(raw) ?? '' }),
    );
  const nodes = messages.map((raw, index) => toNode(raw, index, ids[index] ?? ''));
  const units: Unit[] = [];
  const unitOf = new Int32Array(nodes.length).fill(-1);
  const orphans = new Map<number, string>();
  let lastUserIndex = -1;
  let index = 0;
  while (index < nodes.length) {
    const node = nodes[index]!;
    if (node.role === 'user') lastUserIndex = index;
    if (node.isSystem) {
      index += 1;
      continue;
    }
    if (!node.message || typeof node.message !== 'object') {
      orphans.set(index, 'not a message object');
      index += 1;
      continue;
    }
    if (node.role === 'tool') {
      orphans.set(index, 'orphan tool result: no matching call just before it');
      index += 1;
      continue;
    }
    const members = [index];
    let next = index + 1;
    if (node.toolCallIds.length > 0) {
      const pending = new Set(node.toolCallIds);
      const unique = pending.size === node.toolCallIds.length;
      while (next < nodes.length && nodes[next]!.role === 'tool') {
        const result = nodes[next]!;
        if (result.toolCallId !== undefined && pending.delete(result.toolCallId)) members.push(next);
        else orphans.set(next, 'orphan tool result: answers no pending call');
        next += 1;
      }
      if (pending.size > 0 || !unique) {
        for (const member of members) {
          orphans.set(
            member,
            member === index ? 'orphan tool call: not every call has its result' : 'result of an incomplete tool call',
          );
        }
        index = next;
        continue;
      }
    }
    const position = units.length;
    units.push({ position, members, role: node.role });
    for (const member of members) unitOf[member] = position;
    index = next;
  }
  return { nodes, units, unitOf, orphans, lastUserIndex };
}
