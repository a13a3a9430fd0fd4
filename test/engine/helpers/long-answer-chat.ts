import { expect } from 'vitest';
import {
  countMessageTokens,
  loadEncoder,
  LruTokenCache,
  planContext,
  REPLY_PRIMING_TOKENS,
  validateMessageOrder,
} from '../../../src/domain/engine/index.js';

/**
 * A user ↔ assistant chat of long numbered answers, and its replay through `cache_stable` exchange by exchange with
 * the chat's previous prompt (as the context filter gives it), for the tests of how the core is kept and restarted.
 */
export const MODEL = 'gpt-4o';
export const encoder = loadEncoder('o200k_base');
export const SYSTEM = { role: 'system', content: 'You are a helpful assistant.' };
export const QUESTION = { role: 'user', content: 'Remind me: what did we settle about the sourdough?' };
const TOPICS = ['sourdough', 'marathon', 'tax return', 'kitchen tiles', 'python asyncio', 'trip to Lisbon', 'piano'];

type Message = { role: string; content: string };

/** An answer of `steps` numbered lines (12 steps ≈ 400 tokens, 22 ≈ 650). */
function longAnswer(turn: number, topic: string, steps: number): string {
  const lines = Array.from(
    { length: steps },
    (_, step) =>
      `${step + 1}. For the ${topic}, step ${step + 1} of plan ${turn}: check the details, write down what changed, ` +
      `and compare it with what we decided before about the ${topic}.`,
  );
  return `Here is a detailed answer about the ${topic} (answer ${turn}):\n\n${lines.join('\n')}`;
}

/** `exchanges` short questions, each answered in `steps` numbered lines. */
export function longAnswerChat(exchanges: number, steps: number): Message[] {
  const messages: Message[] = [];
  for (let turn = 0; turn < exchanges; turn++) {
    const topic = TOPICS[turn % TOPICS.length]!;
    messages.push({ role: 'user', content: `Question ${turn}: what should I do next about the ${topic}?` });
    messages.push({ role: 'assistant', content: longAnswer(turn, topic, steps) });
  }
  return messages;
}

/** How many leading messages two prompts share (the same objects in the same places). */
export function sharedLead(previous: readonly unknown[], current: readonly unknown[]): number {
  let shared = 0;
  while (shared < previous.length && shared < current.length && previous[shared] === current[shared]) shared += 1;
  return shared;
}

/** One replayed request after the first: whether the core restarted, and how many leading messages it repeated. */
export interface ReplayedRequest {
  restarted: boolean;
  lead: number;
}

/**
 * Replays `history` from its 12th message, two messages at a time, each request the history so far and QUESTION at a
 * `budget`, checking on every plan the guarantees every request keeps (within the budget, the counted tokens are the
 * sent ones, a valid order, the system prompt first and the question last; with `userFirst`, a user message after the
 * system prompt); returns
 * each request after the first.
 */
export function replayCacheStable(
  history: readonly Message[],
  budget: number,
  options: { userFirst?: boolean } = {},
): ReplayedRequest[] {
  const tokenCache = new LruTokenCache(50_000);
  const requests: ReplayedRequest[] = [];
  let previous: { sequence: string[]; messages: unknown[] } | undefined;
  for (let end = 12; end <= history.length; end += 2) {
    const result = planContext({
      messages: [SYSTEM, ...history.slice(0, end), QUESTION],
      model: MODEL,
      options: { maxTokens: budget, algorithm: 'cache_stable' },
      tokenCache,
      previousSequence: previous?.sequence,
    });
    expect(result.plan.tokensAfter).toBeLessThanOrEqual(budget);
    expect(
      result.messages.reduce<number>((sum, message) => sum + countMessageTokens(message, encoder), 0) +
        REPLY_PRIMING_TOKENS,
    ).toBe(result.plan.tokensAfter);
    expect(validateMessageOrder(result.messages)).toEqual([]);
    expect(result.messages[0]).toBe(SYSTEM);
    expect(result.messages.at(-1)).toBe(QUESTION);
    if (options.userFirst) expect((result.messages[1] as { role: string }).role).toBe('user');
    const sent = result.messages.slice(0, -1);
    if (previous)
      requests.push({
        restarted: result.plan.notes.some((note) => note.startsWith('cache_stable: the core restarted')),
        lead: sharedLead(previous.messages, sent),
      });
    previous = { sequence: result.sequence.slice(0, -1), messages: sent };
  }
  return requests;
}
