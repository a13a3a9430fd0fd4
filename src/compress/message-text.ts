/** Plain text of an OpenAI-format message: string content, text parts, tool calls by name and arguments. */
export function transcriptText(message: unknown): string {
  if (!message || typeof message !== 'object') return '';
  const typed = message as { content?: unknown; tool_calls?: unknown };
  const parts: string[] = [];
  if (typeof typed.content === 'string') parts.push(typed.content);
  else if (Array.isArray(typed.content)) {
    for (const part of typed.content) {
      if (typeof part === 'string') parts.push(part);
      else if (part && typeof (part as { text?: unknown }).text === 'string')
        parts.push((part as { text: string }).text);
      else if (part && typeof part === 'object' && 'image_url' in part) parts.push('[image]');
    }
  }
  if (Array.isArray(typed.tool_calls)) {
    for (const call of typed.tool_calls as Array<{ function?: { name?: unknown; arguments?: unknown } }>) {
      parts.push(`[tool call ${String(call?.function?.name ?? '')}(${String(call?.function?.arguments ?? '')})]`);
    }
  }
  return parts.join('\n');
}

/** Role of an OpenAI-format message, or `unknown`. */
export function messageRole(message: unknown): string {
  const role = (message as { role?: unknown } | null)?.role;
  return typeof role === 'string' ? role : 'unknown';
}

/** Messages rendered one per paragraph as `[ROLE]: text`. */
export function renderTranscript(messages: readonly unknown[]): string {
  return messages.map((message) => `[${messageRole(message).toUpperCase()}]: ${transcriptText(message)}`).join('\n\n');
}
