/** Loose view of an OpenAI-format message. */
export interface LooseMessage {
  role?: unknown;
  content?: unknown;
  name?: unknown;
  tool_calls?: unknown;
  tool_call_id?: unknown;
}

/** Text parts of a message's content joined by newlines; image parts are skipped. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const texts: string[] = [];
  for (const part of content) {
    if (typeof part === 'string') texts.push(part);
    else if (part && typeof part === 'object' && typeof (part as { text?: unknown }).text === 'string') {
      texts.push((part as { text: string }).text);
    }
  }
  return texts.join('\n');
}

/** Scoring text of a message: content text plus tool call names and arguments. */
export function scoringText(message: LooseMessage): string {
  const text = contentText(message.content);
  if (!Array.isArray(message.tool_calls) || message.tool_calls.length === 0) return text;
  const calls = (message.tool_calls as Array<{ function?: { name?: unknown; arguments?: unknown } }>).map(
    (call) =>
      `${String(call?.function?.name ?? '')} ${typeof call?.function?.arguments === 'string' ? call.function.arguments : ''}`,
  );
  return text ? `${text}\n${calls.join('\n')}` : calls.join('\n');
}

/** Index of the newest user message (tool calls and results may follow it); -1 when none. */
export function newestUserIndex(messages: readonly unknown[]): number {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message && typeof message === 'object' && (message as { role?: unknown }).role === 'user') return index;
  }
  return -1;
}
