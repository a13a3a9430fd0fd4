/**
 * A LoCoMo conversation replayed as one chat whose history grows turn by turn, with labelled
 * questions asked as side branches (the question is never kept in the history). The protocol of
 * `npm run bench:cache` and of the real-data tests of the cache-stable selection:
 *
 * - the first request comes once the history (before the question) reaches twice the budget;
 *   then one request every `stride` turns (default 6);
 * - each request asks the next question, in a fixed shuffled order (seeded), whose evidence is
 *   all at least `minDistance` turns (default 20) back from the end of the history; a request
 *   point where no remaining question qualifies is skipped;
 * - the request is the history so far, then the question as the last user message; the chat's
 *   previous prompt (what was sent last time) is the previous request's.
 */
import type { ChatMessage } from './chat-message.js';
import type { LocomoConversation, LocomoQuestion } from './locomo.js';
import { createRng } from './rng.js';

/** One request of the replay: the history length (turns before the question) and the question asked. */
export interface ReplayRequest {
  /** Turns of the conversation in the history: `turns.slice(0, end)`. */
  end: number;
  question: LocomoQuestion;
}

/** Knobs of the protocol; the defaults are the bench's. */
export interface ReplayProtocol {
  stride: number;
  minDistance: number;
  /** Seed of the shuffled question order (per conversation: seed + its position). */
  seed: number;
}

export const REPLAY_PROTOCOL: ReplayProtocol = { stride: 6, minDistance: 20, seed: 23 };

/**
 * The requests of one conversation under `budget`: `startTokens(end)` gives the history's tokens
 * for the first `end` turns (the replay starts when they reach twice the budget).
 */
export function replayRequests(
  conversation: LocomoConversation,
  historyTokens: readonly number[],
  budget: number,
  protocol: ReplayProtocol = REPLAY_PROTOCOL,
  index = 0,
): ReplayRequest[] {
  const pending = createRng(protocol.seed + index).shuffle(conversation.questions);
  let start = 0;
  let sum = 0;
  while (start < historyTokens.length && sum < 2 * budget) sum += historyTokens[start++]!;
  if (sum < 2 * budget) return [];
  const requests: ReplayRequest[] = [];
  for (let end = start; end <= conversation.turns.length && pending.length > 0; end += protocol.stride) {
    const at = pending.findIndex((question) => Math.max(...question.evidence) < end - protocol.minDistance + 1);
    if (at < 0) continue;
    requests.push({ end, question: pending.splice(at, 1)[0]! });
  }
  return requests;
}

/** The request's messages: the history so far, then the question. */
export function replayMessages(conversation: LocomoConversation, request: ReplayRequest): ChatMessage[] {
  return [...conversation.turns.slice(0, request.end), { role: 'user', content: request.question.question }];
}
