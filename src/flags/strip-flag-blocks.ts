import { parseFlagBlock, type FlagBlock } from './parse-flag-block.js';

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

type Part = Record<string, unknown>;

function isTextPart(part: unknown): part is Part & { text: string } {
  return (
    !!part && typeof part === 'object' && (part as Part).type === 'text' && typeof (part as Part).text === 'string'
  );
}

/** Strip the block from one user message; undefined when it has none (the first text part of multimodal content too). */
function stripMessage(
  message: Record<string, unknown>,
  isKnown: (key: string) => boolean,
): { message: Record<string, unknown>; block: FlagBlock } | undefined {
  const content = message.content;
  if (typeof content === 'string') {
    const block = parseFlagBlock(content, isKnown);
    if (!block) return undefined;
    return { message: { ...message, content: block.rest === '' ? FLAG_ONLY_TEXT : block.rest }, block };
  }
  if (!Array.isArray(content)) return undefined;
  const partIndex = content.findIndex(isTextPart);
  if (partIndex < 0) return undefined;
  const part = content[partIndex] as Part & { text: string };
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
  messages: readonly unknown[],
  isKnown: (key: string) => boolean,
): { messages: unknown[]; blocks: FoundBlock[] } {
  const blocks: FoundBlock[] = [];
  const stripped = messages.map((message, index) => {
    if (!message || typeof message !== 'object' || (message as Part).role !== 'user') return message;
    const result = stripMessage(message as Part, isKnown);
    if (!result) return message;
    blocks.push({ index, block: result.block });
    return result.message;
  });
  return { messages: stripped, blocks };
}

/** Index of the newest user message (tool calls and results may follow it); -1 when none. */
export { newestUserIndex } from '../engine/conversation/message-text.js';
