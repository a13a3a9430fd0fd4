import { descendingOrder } from './descending-order.js';
import type { FillRanking, SelectionUnit } from './selection-algorithm.js';

export type { FillRanking } from './selection-algorithm.js';

/**
 * A chat whose replies are much longer than its questions (a user ↔ assistant chat with long answers): the mean
 * plain reply is at least this many times the mean plain user message. Between the two shapes measured, with a margin
 * on both sides: LoCoMo's speakers 0.9–1.1×, LongMemEval's assistant 2.9–9.3× its user (per chat).
 */
export const LONG_ANSWER_RATIO = 2;

/**
 * A question about what the assistant said earlier ("you mentioned…", "what did you recommend", "remind me…", "our
 * previous conversation"): its answer is a reply, so even in a chat of long answers it is ranked by weight alone.
 */
export const ASKS_ABOUT_REPLIES =
  /\b(?:you|you've)\s+(?:said|mentioned|told|recommended|suggested|gave|listed|wrote|explained|described|provided|shared|named)\b|\bdid you\s+(?:say|mention|tell|recommend|suggest|give|list|write|explain|describe|call)\b|\bremind me\b|\bour (?:previous|last|earlier) (?:conversation|chat|discussion)\b/i;

/**
 * The ranking for a chat, from its own message lengths: in a chat where replies are LONG_ANSWER_RATIO × longer
 * than user messages (assistant chats: lists, code, explanations), a long reply that borrows a question's score
 * from its neighbours would otherwise displace several short messages that carry the facts, so units compete by
 * weight ÷ √tokens (bench:recall:assistant, LongMemEval S dev, 2k / 8k / 32k: 78.8 → 91.3 %, 93.4 → 98.0 %, 96.9 → 100 %). In chats of short turns of similar
 * length (two people talking), weight alone: the fact-carrying messages are the longer ones there, and weight ÷
 * √tokens cost LoCoMo 3–5 points. A chat that calls tools keeps weight alone (generated coding chats: 90.7 → 72.1 % at
 * 2k by weight ÷ √tokens).
 */
export function fillRanking(units: readonly SelectionUnit[], query = ''): FillRanking {
  // "Can you remind me what you recommended?": the answer is one of the long replies, which weight alone ranks well.
  if (ASKS_ABOUT_REPLIES.test(query)) return { density: 0 };
  let userTokens = 0;
  let users = 0;
  let replyTokens = 0;
  let replies = 0;
  for (const unit of units) {
    // A chat that calls tools is a coding or agent chat: its long messages (code, tool output) carry the facts.
    if (unit.members.length !== 1 || unit.role === 'tool') return { density: 0 };
    if (unit.role === 'user') {
      userTokens += unit.tokens;
      users += 1;
    } else if (unit.role === 'assistant') {
      replyTokens += unit.tokens;
      replies += 1;
    }
  }
  const longAnswers = users > 0 && replies > 0 && replyTokens / replies >= LONG_ANSWER_RATIO * (userTokens / users);
  return { density: longAnswers ? 0.5 : 0 };
}

/**
 * Greedy fill by weight: the best-scoring units first, ties to the newer unit, each kept if it still fits
 * (smaller units may fill the gap). Weight alone, not weight per token, in chats of short turns: there the messages
 * a question needs are often the long, fact-carrying ones, and ranking by weight ÷ √tokens cost 3–5 points of
 * evidence recall (bench:recall, LoCoMo dev); chats of long answers rank by weight ÷ √tokens (`fillRanking`).
 * Marks `kept` in place and returns the tokens used.
 */
export function fillByWeight(
  units: readonly SelectionUnit[],
  weights: ArrayLike<number>,
  available: number,
  kept: boolean[],
  ranking: FillRanking = { density: 0 },
): number {
  // Units come in position order, so a larger index is newer: ties go to it.
  const count = units.length;
  // All weights equal (static weighting, nothing scored): the newest first, whatever the sizes.
  const density = units.every((unit) => unit.weight === units[0]!.weight) ? 0 : ranking.density;
  const key = new Float64Array(count);
  for (let at = 0; at < count; at += 1) {
    const unit = units[at]!;
    key[at] = density > 0 ? weights[unit.position]! / Math.max(1, unit.tokens) ** density : weights[unit.position]!;
  }
  const order = descendingOrder(key);
  let used = 0;
  for (let rank = 0; rank < count; rank += 1) {
    const unit = units[order[rank]!]!;
    if (kept[unit.position]) continue;
    if (used + unit.tokens <= available) {
      kept[unit.position] = true;
      used += unit.tokens;
    }
  }
  return used;
}
