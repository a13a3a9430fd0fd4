import { stripFromReplies } from '../../core/messages/append-to-reply.js';
import type { UsageRecord } from './types.js';
import { formatReplyUsd as formatUsd } from './cost-status.js';
import { isRecord, looseMessage } from '../../core/messages/chat-message.js';

const number = (value: number) => value.toLocaleString('en-US');

/**
 * The short usage line appended to a reply: `1,234 in · 567 out · $0.0123`. Estimates are
 * marked `~`; an unknown price leaves the cost out.
 */
export function formatUsageLine(record: UsageRecord): string {
  const approx = record.usageSource === 'estimated' ? '~' : '';
  const parts = [`${approx}${number(record.promptTokens)} in`, `${approx}${number(record.completionTokens)} out`];
  if (record.costSource !== 'unpriced')
    parts.push(`${record.costSource === 'estimated' ? '~' : ''}${formatUsd(record.cost)}`);
  return parts.join(' · ');
}

/**
 * A copy of the outlet body with `line` appended to the last assistant message, keeping every
 * other field (chat_id, id, session_id, message ids) as is. Appending twice is a no-op.
 */
export function appendUsageLine<B extends Record<string, unknown>>(body: B, line: string): B {
  const messages = Array.isArray(body.messages) ? [...body.messages] : [];
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = looseMessage(messages[index]);
    if (message?.role !== 'assistant') continue;
    const suffix = `\n\n*${line}*`;
    const content = message.content;
    if (typeof content === 'string') {
      if (content.endsWith(suffix)) return body;
      messages[index] = { ...message, content: content + suffix };
    } else if (Array.isArray(content)) {
      const last: unknown = content[content.length - 1];
      if (isRecord(last) && last.text === suffix.trimStart()) return body;
      messages[index] = { ...message, content: [...content, { type: 'text', text: suffix.trimStart() }] };
    } else return body;
    return { ...body, messages };
  }
  return body;
}

/** Matches a usage line this module appended at the end of a reply. */
export const USAGE_LINE_PATTERN = /\n\n\*~?[\d,]+ in · ~?[\d,]+ out(?: · ~?\$[\d.]+)?\*$/;

/**
 * A copy of an inlet body whose assistant messages no longer end with a usage line, so the
 * model neither pays for nor imitates them; the same body when there was none.
 */
export function stripUsageLines<B extends Record<string, unknown>>(body: B): B {
  if (!Array.isArray(body.messages)) return body;
  const messages = stripFromReplies(body.messages as unknown[], USAGE_LINE_PATTERN);
  return messages === body.messages ? body : { ...body, messages };
}
