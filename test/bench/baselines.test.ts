import { describe, expect, it } from 'vitest';
import { bm25Scores } from '../../bench/lib/bm25.js';
import { bm25Selection } from '../../bench/lib/bm25-selection.js';
import type { ChatMessage } from '../../bench/lib/chat-message.js';
import { evidenceRecall, quantile, recentRetention } from '../../bench/lib/metrics.js';
import { randomSelection } from '../../bench/lib/random-selection.js';
import { selectionTokens, type SelectionInput } from '../../bench/lib/selection.js';
import { slidingWindow } from '../../bench/lib/sliding-window.js';
import { MessageTokenCounter, PRIMING_TOKENS } from '../../bench/lib/token-count.js';

const messages: ChatMessage[] = [
  { role: 'system', content: 'sys' },
  { role: 'user', content: 'my dog is called Biscuit' },
  { role: 'assistant', content: 'nice' },
  { role: 'user', content: 'the weather is grey' },
  { role: 'assistant', content: 'indeed' },
  { role: 'user', content: 'what is my dog called?' },
];
// Hand-made costs: system 10, each chat message 20; priming 3.
const tokens = [10, 20, 20, 20, 20, 20];

describe('baselines', () => {
  it('sliding window keeps exactly the newest messages that fit, plus the system prompt', () => {
    const input: SelectionInput = { messages, tokens, budget: PRIMING_TOKENS + 10 + 3 * 20 };
    expect(slidingWindow(input)).toEqual([0, 3, 4, 5]);
  });

  it('sliding window stops at the first message that does not fit instead of skipping it', () => {
    const uneven = [10, 5, 5, 50, 20, 20];
    expect(slidingWindow({ messages, tokens: uneven, budget: PRIMING_TOKENS + 10 + 40 + 10 })).toEqual([0, 4, 5]);
  });

  it('every baseline keeps the last user message and stays within budget', () => {
    const budget = PRIMING_TOKENS + 10 + 20;
    for (const select of [slidingWindow, randomSelection(1), bm25Selection]) {
      const kept = select({ messages, tokens, budget });
      expect(kept).toEqual([0, 5]);
      expect(selectionTokens(tokens, kept)).toBeLessThanOrEqual(budget);
    }
  });

  it('BM25 prefers the message that shares rare words with the question', () => {
    const kept = bm25Selection({ messages, tokens, budget: PRIMING_TOKENS + 10 + 2 * 20 });
    expect(kept).toEqual([0, 1, 5]);
    const scores = bm25Scores(
      messages.map((message) => message.content),
      'what is my dog called?',
    );
    expect(scores[1]).toBeGreaterThan(scores[3] ?? 0);
  });

  it('random selection is deterministic for a seed and fills the budget', () => {
    const input = { messages, tokens, budget: PRIMING_TOKENS + 10 + 3 * 20 };
    expect(randomSelection(5)(input)).toEqual(randomSelection(5)(input));
    expect(randomSelection(5)(input)).toHaveLength(4);
  });
});

describe('metrics', () => {
  it('evidence recall is the share of needed messages kept', () => {
    const kept = new Set([0, 1, 5]);
    expect(evidenceRecall([{ index: 1, contains: 'Biscuit' }], kept)).toBe(1);
    expect(
      evidenceRecall(
        [
          { index: 1, contains: 'x' },
          { index: 3, contains: 'y' },
        ],
        kept,
      ),
    ).toBe(0.5);
  });

  it('recent-turn retention is the share of the last four messages kept', () => {
    expect(recentRetention(6, new Set([0, 2, 3, 4, 5]))).toBe(1);
    expect(recentRetention(6, new Set([0, 1, 5]))).toBe(0.25);
  });

  it('quantile uses nearest rank', () => {
    expect(quantile([5, 1, 3, 2, 4], 0.5)).toBe(3);
    expect(quantile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.95)).toBe(10);
  });

  it('counts tokens like the engine: per-message overhead plus priming', () => {
    const counter = new MessageTokenCounter();
    const one = counter.message({ role: 'user', content: 'hello' });
    expect(one).toBeGreaterThan(3);
    expect(counter.prompt([{ role: 'user', content: 'hello' }])).toBe(one + PRIMING_TOKENS);
  });
});

describe('BM25 with recent messages first', () => {
  it('keeps the newest messages before the best-scoring ones', () => {
    const kept = bm25Selection({ messages, tokens, budget: PRIMING_TOKENS + 10 + 3 * 20 }, 2);
    expect(kept).toEqual([0, 1, 4, 5]);
  });
});
