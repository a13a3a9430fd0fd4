import { createHash } from 'node:crypto';
import { USAGE_LINE_PATTERN } from './format-usage-line.js';
import { stripContextNotes } from '../notes/context-note-line.js';

/**
 * sha256 of user id, model id and the reply's text without the lines Eunoe's outlets append
 * (usage line, context note) and surrounding blanks: the proxy and the outlet compute the same.
 */
export function replyFingerprint(userId: string, model: string, text: string): string {
  const withoutUsage = text.replace(USAGE_LINE_PATTERN, '');
  const [reply] = stripContextNotes([{ role: 'assistant', content: withoutUsage }]);
  const canonical = typeof reply?.content === 'string' ? reply.content : withoutUsage;
  return createHash('sha256').update(`${userId}\n${model}\n${canonical.trim()}`).digest('hex');
}
