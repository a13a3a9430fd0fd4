import { countMessageTokens, loadEncoder, REPLY_PRIMING_TOKENS } from '../../../src/domain/engine/index.js';
import type { Reply, SeenRequest } from '../../llm/helpers/loopback-openai.js';
import { chatReply, summaryInput } from '../../llm/helpers/loopback-openai.js';
import type { ChatMessage } from '../../../src/core/messages/chat-message.js';

/** A plain-text chat message: the shared `ChatMessage` with string content. */
export type Message = ChatMessage & { content: string };

const FILLER = 'please keep track of the delivery window and the packaging preferences we talked about earlier today';

/** A chat of `turns` turns; turn i mentions order ORD-(1000+i) and a budget of $(100·(i+1)), in lower-case filler. */
export function orderChat(turns: number, question = 'what is the status of everything?'): Message[] {
  const messages: Message[] = [{ role: 'system', content: 'You are a helpful shop assistant.' }];
  for (let turn = 0; turn < turns; turn++) {
    messages.push({
      role: 'user',
      content: `for order ORD-${1000 + turn} the budget is $${100 * (turn + 1)}, ${FILLER} ${FILLER}`,
    });
    messages.push({
      role: 'assistant',
      content: `noted, order ORD-${1000 + turn} is registered and ${FILLER} ${FILLER}`,
    });
  }
  messages.push({ role: 'user', content: question });
  return messages;
}

/** A good summarizer: restates every order id and amount of the transcript it was sent. */
export function faithfulSummary(request: SeenRequest): Reply {
  const text = summaryInput(request);
  const orders = [...new Set(text.match(/ORD-\d+/g) ?? [])];
  const amounts = [...new Set(text.match(/\$\d+/g) ?? [])];
  return chatReply(orders.map((order, index) => `- order ${order}, budget ${amounts[index] ?? 'unknown'}`).join('\n'));
}

/** Prompt tokens of `messages` as the engine counts them (o200k, priming included). */
export function promptTokens(messages: readonly unknown[]): number {
  const encoder = loadEncoder('o200k_base');
  return messages.reduce<number>((sum, message) => sum + countMessageTokens(message, encoder), REPLY_PRIMING_TOKENS);
}
