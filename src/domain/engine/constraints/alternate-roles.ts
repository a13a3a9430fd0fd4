import { looseMessage, type LooseMessage } from '../../../core/messages/chat-message.js';

/** Content as a list of parts (a string becomes one text part). */
function asParts(content: unknown): unknown[] {
  if (Array.isArray(content))
    return content.map((part) => (typeof part === 'string' ? { type: 'text', text: part } : part));
  return [{ type: 'text', text: typeof content === 'string' ? content : '' }];
}

/** The content of two messages of one speaker as one: strings joined by a blank line, otherwise the parts of both. */
function mergeContent(first: unknown, second: unknown): unknown {
  if (typeof first === 'string' && typeof second === 'string') return `${first}\n\n${second}`;
  return [...asParts(first), ...asParts(second)];
}

/** A plain user or assistant message (no tool calls): one that can absorb the next one of the same role. */
function mergeable(message: LooseMessage | undefined, role: 'user' | 'assistant'): boolean {
  return message?.role === role && !(Array.isArray(message.tool_calls) && message.tool_calls.length > 0);
}

/**
 * Strict role alternation for chat templates that reject two user (or two assistant) messages
 * in a row, as trimming can leave them: adjacent plain user messages are merged into one, as
 * are adjacent plain assistant messages (no tool calls), keeping the first one's other fields.
 * Nothing is dropped and no token is added (a blank line replaces a message's overhead).
 * System messages, tool calls and tool results pass unchanged. Returns new message objects
 * only where a merge happened, and for each message sent the positions it came from.
 */
export function alternateRoles(messages: readonly unknown[]): {
  messages: unknown[];
  merged: number;
  sources: number[][];
} {
  const out: unknown[] = [];
  const sources: number[][] = [];
  let merged = 0;
  for (const [position, message] of messages.entries()) {
    const current = looseMessage(message);
    const previous = looseMessage(out.at(-1));
    const role = current?.role === 'user' || current?.role === 'assistant' ? current.role : undefined;
    if (role && mergeable(current, role) && mergeable(previous, role)) {
      out[out.length - 1] = { ...previous, content: mergeContent(previous?.content, current?.content) };
      sources.at(-1)!.push(position);
      merged += 1;
    } else {
      out.push(message);
      sources.push([position]);
    }
  }
  return { messages: out, merged, sources };
}
