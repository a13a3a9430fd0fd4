import { isRecord, type LooseMessage } from '../../../core/messages/chat-message.js';
import { contentText } from '../../../core/messages/last-user-message.js';

export { contentText, newestUserIndex } from '../../../core/messages/last-user-message.js';

export type { LooseMessage };

/** Longest scoring text of one message, in UTF-16 code units (32 Ki). */
export const SCORING_TEXT_CHARS = 32_768;
/** Of a longer text, scoring reads its start (three quarters of the limit) and its end (the rest). */
const SCORING_HEAD_CHARS = (SCORING_TEXT_CHARS * 3) / 4;

/**
 * At most SCORING_TEXT_CHARS of `text`: a longer text is cut to its start and its end (a pasted document's
 * question is usually before or after it), joined by a newline. Term indexing, names and time facts read this
 * text, so their work per message is bounded whatever its size.
 */
export function scoringExcerpt(text: string): string {
  if (text.length <= SCORING_TEXT_CHARS) return text;
  const tail = SCORING_TEXT_CHARS - SCORING_HEAD_CHARS - 1;
  return `${text.slice(0, SCORING_HEAD_CHARS)}\n${text.slice(text.length - tail)}`;
}

/** Scoring text of a message: content text plus tool call names and arguments, at most SCORING_TEXT_CHARS. */
export function scoringText(message: LooseMessage): string {
  const text = contentText(message.content);
  if (!Array.isArray(message.tool_calls) || message.tool_calls.length === 0) return scoringExcerpt(text);
  const calls = message.tool_calls.map((call) => {
    const fn = isRecord(call) && isRecord(call.function) ? call.function : undefined;
    return `${String(fn?.name ?? '')} ${typeof fn?.arguments === 'string' ? fn.arguments : ''}`;
  });
  return scoringExcerpt(text ? `${text}\n${calls.join('\n')}` : calls.join('\n'));
}
