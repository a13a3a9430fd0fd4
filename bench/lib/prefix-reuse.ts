import type { ChatMessage } from './chat-message.js';

/** Number of leading messages two requests share (same role and content, in order). */
export function commonPrefixLength(previous: readonly ChatMessage[], current: readonly ChatMessage[]): number {
  const limit = Math.min(previous.length, current.length);
  let length = 0;
  while (
    length < limit &&
    previous[length]!.role === current[length]!.role &&
    previous[length]!.content === current[length]!.content
  )
    length += 1;
  return length;
}

/** Prompt tokens in the shared prefix: the sum of the first `length` message costs. */
export function prefixTokens(messageTokens: readonly number[], length: number): number {
  let total = 0;
  for (let index = 0; index < length; index++) total += messageTokens[index] ?? 0;
  return total;
}

/**
 * Tokens a provider with OpenAI's rule bills as cached: nothing below 1,024 tokens, then
 * the prefix rounded down to a multiple of 128.
 */
export function openAiCachedTokens(prefix: number, minimum = 1024, block = 128): number {
  return prefix < minimum ? 0 : Math.floor(prefix / block) * block;
}
