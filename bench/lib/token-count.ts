import { countMessageTokens, loadEncoder, REPLY_PRIMING_TOKENS } from '../../src/domain/engine/index.js';
import type { LooseMessage } from '../../src/core/messages/chat-message.js';

/** Any message the benches count: plain chat messages, and tool calls and results (content may be null). */
export type CountableMessage = LooseMessage & { role: string };

/** Tokens that prime the assistant's reply, counted once per request (the engine's constant). */
export const PRIMING_TOKENS = REPLY_PRIMING_TOKENS;

/**
 * Counts message tokens exactly as the engine does (its own `countMessageTokens`, o200k_base),
 * so baselines and engine see the same costs and budget. Plain text messages are memoised by role
 * and content; tool calls and results (whose cost depends on more than their content) by object.
 */
export class MessageTokenCounter {
  private readonly memo = new Map<string, number>();
  private readonly byObject = new WeakMap<object, number>();

  /** Tokens one message costs in a prompt, per-message overhead included. */
  message(message: CountableMessage): number {
    const plain =
      typeof message.content === 'string' && message.tool_calls === undefined && message.tool_call_id === undefined;
    let tokens = plain ? this.memo.get(`${message.role}\u0000${message.content}`) : this.byObject.get(message);
    if (tokens === undefined) {
      tokens = countMessageTokens(message, loadEncoder('o200k_base'));
      if (plain) this.memo.set(`${message.role}\u0000${message.content}`, tokens);
      else this.byObject.set(message, tokens);
    }
    return tokens;
  }

  /** Per-message token costs, in order. */
  messages(messages: readonly CountableMessage[]): number[] {
    return messages.map((message) => this.message(message));
  }

  /** Prompt tokens of a whole request: every message plus PRIMING_TOKENS. */
  prompt(messages: readonly CountableMessage[]): number {
    let total = PRIMING_TOKENS;
    for (const message of messages) total += this.message(message);
    return total;
  }
}
