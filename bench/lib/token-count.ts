import { countMessageTokens, loadEncoder, REPLY_PRIMING_TOKENS } from '../../src/engine/index.js';
import type { ChatMessage } from './chat-message.js';

/** Tokens that prime the assistant's reply, counted once per request (the engine's constant). */
export const PRIMING_TOKENS = REPLY_PRIMING_TOKENS;

/**
 * Counts message tokens exactly as the engine does (its own `countMessageTokens`, o200k_base),
 * memoised by role and content, so baselines and engine see the same costs and budget.
 */
export class MessageTokenCounter {
  private readonly memo = new Map<string, number>();

  /** Tokens one message costs in a prompt, per-message overhead included. */
  message(message: ChatMessage): number {
    const key = `${message.role}\u0000${message.content}`;
    let tokens = this.memo.get(key);
    if (tokens === undefined) {
      tokens = countMessageTokens(message, loadEncoder('o200k_base'));
      this.memo.set(key, tokens);
    }
    return tokens;
  }

  /** Per-message token costs, in order. */
  messages(messages: readonly ChatMessage[]): number[] {
    return messages.map((message) => this.message(message));
  }

  /** Prompt tokens of a whole request: every message plus PRIMING_TOKENS. */
  prompt(messages: readonly ChatMessage[]): number {
    let total = PRIMING_TOKENS;
    for (const message of messages) total += this.message(message);
    return total;
  }
}
