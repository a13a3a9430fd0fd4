/**
 * The history as the next inlet will most likely see it: this turn's messages with the
 * reply, plus a stand-in for the next question (a copy of the last user message, so the
 * budget arithmetic is close; it is always kept, never summarized).
 */
export function nextTurnMessages(messages: readonly unknown[]): unknown[] {
  const last = [...messages].reverse().find((message) => (message as { role?: unknown } | null)?.role === 'user') as { content?: unknown } | undefined;
  const standIn = { role: 'user', content: last?.content ?? '' };
  return [...messages, standIn];
}

/** Text of the newest user message (the query scorers rank against). */
export function lastUserText(messages: readonly unknown[]): string {
  const last = [...messages].reverse().find((message) => (message as { role?: unknown } | null)?.role === 'user') as { content?: unknown } | undefined;
  const content = last?.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (typeof (part as { text?: unknown })?.text === 'string' ? (part as { text: string }).text : '')).join(' ');
  return '';
}
