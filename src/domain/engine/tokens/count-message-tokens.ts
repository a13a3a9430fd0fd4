import type { TokenCounter } from './load-encoder.js';
import { imageTokens } from './image-tokens.js';
import { EXACT_COUNT_CHARS } from './long-text-estimate.js';
import { isRecord, looseMessage } from '../../../core/messages/chat-message.js';

/** Chat-format overhead per message (`<|start|>role…<|end|>`). */
export const TOKENS_PER_MESSAGE = 3;
/** Extra token when a message carries `name`. */
export const TOKENS_PER_NAME = 1;
/** Reply priming added once per request (`<|start|>assistant<|message|>`). */
export const REPLY_PRIMING_TOKENS = 3;

/** Characters of the text parts of a content array (where the exact count would be long). */
function partsLength(content: unknown[]): number {
  let length = 0;
  for (const part of content) {
    if (typeof part === 'string') length += part.length;
    else if (isRecord(part) && typeof part.text === 'string') length += part.text.length;
  }
  return length;
}

/**
 * Tokens of a content value: strings, text parts, image parts by the tile formula. Parts longer together than
 * EXACT_COUNT_CHARS are counted as one text (so estimated: many parts cost no more than one long text).
 */
function contentTokens(content: unknown, encoder: TokenCounter): number {
  if (typeof content === 'string') return encoder.count(content);
  if (!Array.isArray(content)) return content == null ? 0 : encoder.count(JSON.stringify(content));
  if (partsLength(content) > EXACT_COUNT_CHARS) {
    const texts: string[] = [];
    let images = 0;
    for (const part of content) {
      if (typeof part === 'string') texts.push(part);
      else if (isRecord(part)) {
        if (typeof part.text === 'string') texts.push(part.text);
        else if (part.type === 'image_url' || part.image_url !== undefined) images += imageTokens(part.image_url);
        else texts.push(JSON.stringify(part));
      }
    }
    return images + encoder.count(texts.join('\n'));
  }
  let total = 0;
  for (const part of content) {
    if (typeof part === 'string') total += encoder.count(part);
    else if (isRecord(part)) {
      if (typeof part.text === 'string') total += encoder.count(part.text);
      else if (part.type === 'image_url' || part.image_url !== undefined) total += imageTokens(part.image_url);
      else total += encoder.count(JSON.stringify(part));
    }
  }
  return total;
}

/**
 * Estimated prompt tokens of one OpenAI-format message: 3 per message, the role, the
 * content (images by tiles), `name` (+1), `tool_calls` as JSON and `tool_call_id`.
 */
export function countMessageTokens(message: unknown, encoder: TokenCounter): number {
  const typed = looseMessage(message);
  if (!typed) return TOKENS_PER_MESSAGE;
  let total = TOKENS_PER_MESSAGE + encoder.count(String(typed.role ?? ''));
  total += contentTokens(typed.content, encoder);
  if (typeof typed.name === 'string') total += encoder.count(typed.name) + TOKENS_PER_NAME;
  if (Array.isArray(typed.tool_calls) && typed.tool_calls.length > 0)
    total += encoder.count(JSON.stringify(typed.tool_calls));
  if (typeof typed.tool_call_id === 'string') total += encoder.count(typed.tool_call_id);
  return total;
}
