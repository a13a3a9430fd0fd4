import { parseFlagBlock, type FlagBlock } from './parse-flag-block.js';
import { type ChatMessage, isTextPart } from '../../core/messages/chat-message.js';

/**
 * What the model sees instead of a user message that held nothing but flags: a short,
 * neutral text, so the request stays well-formed and the model simply carries on.
 */
export const FLAG_ONLY_TEXT = '(continue)';

/** A flag block found in the user message at `index` of the message list. */
export interface FoundBlock {
  index: number;
  block: FlagBlock;
}

/** Strip the block from one user message; undefined when it has none (the first text part of multimodal content too). */
function stripMessage(
  message: ChatMessage,
  isKnown: (key: string) => boolean,
): { message: ChatMessage; block: FlagBlock } | undefined {
  const content = message.content;
  if (typeof content === 'string') {
    const block = parseFlagBlock(content, isKnown);
    if (!block) return undefined;
    return { message: { ...message, content: block.rest === '' ? FLAG_ONLY_TEXT : block.rest }, block };
  }
  if (!Array.isArray(content)) return undefined;
  const partIndex = content.findIndex(isTextPart);
  const part = content[partIndex];
  if (!isTextPart(part)) return undefined;
  const block = parseFlagBlock(part.text, isKnown);
  if (!block) return undefined;
  const parts = [...content];
  if (block.rest !== '') parts[partIndex] = { ...part, text: block.rest };
  else if (parts.length > 1) parts.splice(partIndex, 1);
  else parts[partIndex] = { ...part, text: FLAG_ONLY_TEXT };
  return { message: { ...message, content: parts }, block };
}

/**
 * Remove the flag block from every user message (only keys `isKnown` accepts count). Returns a
 * new array; messages without a block are the identical objects, the input is not mutated.
 */
export function stripFlagBlocks(
  messages: readonly ChatMessage[],
  isKnown: (key: string) => boolean,
): { messages: ChatMessage[]; blocks: FoundBlock[] } {
  const blocks: FoundBlock[] = [];
  const stripped = messages.map((message, index) => {
    // Checked messages are objects; the guard stays for callers that pass unchecked JSON.
    if (!message || typeof message !== 'object' || message.role !== 'user') return message;
    const result = stripMessage(message, isKnown);
    if (!result) return message;
    blocks.push({ index, block: result.block });
    return result.message;
  });
  return { messages: stripped, blocks };
}

/** Index of the newest user message (tool calls and results may follow it); -1 when none. */
export { newestUserIndex } from '../../core/messages/last-user-message.js';
