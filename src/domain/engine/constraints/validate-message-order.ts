import { isRecord, looseMessage } from '../../../core/messages/chat-message.js';

/** One rule a provider would reject a message list for. */
export interface OrderViolation {
  index: number;
  rule: 'first-chat-not-user' | 'tool-call-unanswered' | 'tool-result-without-call';
  detail: string;
}

const SYSTEM_ROLES = new Set(['system', 'developer']);

/**
 * Checks OpenAI's and Anthropic's ordering rules: the first non-system message is a user
 * message; an assistant `tool_calls` message is followed directly by exactly one tool result
 * per call; every tool message answers a call of the assistant message right before its run.
 */
export function validateMessageOrder(messages: readonly unknown[]): OrderViolation[] {
  const violations: OrderViolation[] = [];
  const firstChat = messages.findIndex((raw) => !SYSTEM_ROLES.has(String(looseMessage(raw)?.role)));
  if (firstChat >= 0 && looseMessage(messages[firstChat])?.role !== 'user') {
    violations.push({
      index: firstChat,
      rule: 'first-chat-not-user',
      detail: `first chat message has role ${String(looseMessage(messages[firstChat])?.role)}`,
    });
  }
  let pending: Set<string> | undefined;
  let caller = -1;
  messages.forEach((raw, index) => {
    const message = looseMessage(raw) ?? {};
    if (message.role === 'tool') {
      const id = typeof message.tool_call_id === 'string' ? message.tool_call_id : '';
      if (!pending?.delete(id))
        violations.push({ index, rule: 'tool-result-without-call', detail: `tool result ${id} has no pending call` });
      return;
    }
    if (pending && pending.size > 0)
      violations.push({
        index: caller,
        rule: 'tool-call-unanswered',
        detail: `calls ${[...pending].join(', ')} have no result`,
      });
    pending = undefined;
    if (message.role === 'assistant' && Array.isArray(message.tool_calls) && message.tool_calls.length > 0) {
      pending = new Set(message.tool_calls.map((call) => String(isRecord(call) ? call.id : undefined)));
      caller = index;
    }
  });
  if (pending && pending.size > 0)
    violations.push({
      index: caller,
      rule: 'tool-call-unanswered',
      detail: `calls ${[...pending].join(', ')} have no result`,
    });
  return violations;
}
