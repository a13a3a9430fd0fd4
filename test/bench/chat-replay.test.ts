import { describe, expect, it } from 'vitest';
import { replayMessages, replayRequests, REPLAY_PROTOCOL } from '../../bench/lib/chat-replay.js';
import type { LocomoConversation } from '../../bench/lib/locomo.js';

/** bench:cache's replay protocol on a made-up conversation: where it starts, its stride, the 20-turn rule, the order. */
function conversation(turns: number, questions: Array<{ evidence: number[] }>): LocomoConversation {
  return {
    sampleId: 'made-up',
    turns: Array.from({ length: turns }, (_, index) => ({
      role: index % 2 ? 'assistant' : 'user',
      content: `turn ${index}`,
    })),
    questions: questions.map((question, index) => ({
      sampleId: 'made-up',
      question: `question ${index}?`,
      category: 4,
      evidence: question.evidence,
    })),
    skipped: 0,
  };
}

describe('bench:cache chat replay', () => {
  const tokens = Array.from({ length: 300 }, () => 10);
  const chat = conversation(
    300,
    Array.from({ length: 40 }, (_, index) => ({ evidence: [index * 7, index * 7 + 1] })),
  );

  it('starts once the history holds twice the budget, then every 6 turns, evidence at least 20 turns back', () => {
    const requests = replayRequests(chat, tokens, 500);
    expect(requests[0]!.end).toBe(100); // 100 turns × 10 tokens = 2 × 500
    for (const request of requests) {
      expect((request.end - requests[0]!.end) % REPLAY_PROTOCOL.stride).toBe(0);
      expect(Math.max(...request.question.evidence)).toBeLessThanOrEqual(request.end - 20);
    }
    expect(new Set(requests.map((request) => request.question)).size).toBe(requests.length); // each asked once
    expect(requests.length).toBeGreaterThan(20);
  });

  it('asks in a fixed shuffled order: the same for the same seed, another for another conversation index', () => {
    const order = (index: number) =>
      replayRequests(chat, tokens, 500, REPLAY_PROTOCOL, index).map((r) => r.question.question);
    expect(order(0)).toEqual(order(0));
    expect(order(1)).not.toEqual(order(0));
    const asked = order(0);
    expect(asked).not.toEqual(
      [...asked].sort((a, b) => Number(a.split(' ')[1]!.slice(0, -1)) - Number(b.split(' ')[1]!.slice(0, -1))),
    );
  });

  it('a history shorter than twice the budget is never replayed; the request is the history then the question', () => {
    expect(replayRequests(chat, tokens, 2000)).toEqual([]);
    const [first] = replayRequests(chat, tokens, 500);
    const messages = replayMessages(chat, first!);
    expect(messages).toHaveLength(first!.end + 1);
    expect(messages.at(-1)).toEqual({ role: 'user', content: first!.question.question });
    expect(messages.slice(0, -1)).toEqual(chat.turns.slice(0, first!.end));
  });
});
