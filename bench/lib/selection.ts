import type { ChatMessage } from './chat-message.js';
import { PRIMING_TOKENS } from './token-count.js';

/** Inputs every selection strategy gets: the request, per-message token costs and the prompt budget. */
export interface SelectionInput {
  messages: readonly ChatMessage[];
  /** Tokens of each message including its per-message overhead (same order as messages). */
  tokens: readonly number[];
  /** Budget for the whole prompt: system prompt, kept messages and priming tokens. */
  budget: number;
}

/** A selection strategy: returns the indices of the messages it keeps, ascending. */
export type SelectionStrategy = (input: SelectionInput) => number[];

/** Index of the last user message, or -1. */
export function lastUserIndex(messages: readonly ChatMessage[]): number {
  for (let index = messages.length - 1; index >= 0; index--) if (messages[index]?.role === 'user') return index;
  return -1;
}

/** Indices every fair baseline keeps unconditionally (system messages and the last user message), and their cost. */
export function mandatory(input: SelectionInput): { kept: Set<number>; used: number } {
  const kept = new Set<number>();
  let used = PRIMING_TOKENS;
  input.messages.forEach((message, index) => {
    if (message.role === 'system') {
      kept.add(index);
      used += input.tokens[index] ?? 0;
    }
  });
  const last = lastUserIndex(input.messages);
  if (last >= 0 && !kept.has(last)) {
    kept.add(last);
    used += input.tokens[last] ?? 0;
  }
  return { kept, used };
}

/** Fills the budget from a candidate order, skipping (not stopping at) messages that do not fit. */
export function fillInOrder(input: SelectionInput, order: readonly number[], stopAtFirstMiss = false): number[] {
  const { kept, used: base } = mandatory(input);
  let used = base;
  for (const index of order) {
    if (kept.has(index)) continue;
    const cost = input.tokens[index] ?? 0;
    if (used + cost <= input.budget) {
      kept.add(index);
      used += cost;
    } else if (stopAtFirstMiss) break;
  }
  return [...kept].sort((a, b) => a - b);
}

/** Prompt tokens of a selection: its messages' tokens plus priming. */
export function selectionTokens(tokens: readonly number[], kept: readonly number[]): number {
  return kept.reduce((sum, index) => sum + (tokens[index] ?? 0), PRIMING_TOKENS);
}
