import { describe, expect, it } from 'vitest';
import { planContext } from '../../src/domain/engine/index.js';
import { fillRanking } from '../../src/domain/engine/selection/fill-by-weight.js';
import type { SelectionUnit } from '../../src/domain/engine/selection/selection-algorithm.js';

type Message = { role: 'user' | 'assistant'; content: string };

/** A long assistant answer (~350 tokens) on a topic, repeating the topic's words as real answers do. */
function longAnswer(topic: string, words: string): string {
  const sentence = `Here is a detailed answer about ${topic}: ${words}, with practical steps, trade-offs and examples to consider.`;
  return Array.from({ length: 14 }, (_, step) => `${step + 1}. ${sentence}`).join('\n');
}

/**
 * A user ↔ assistant chat with long answers: the long answers match most of the question's words (they are about
 * the adopted cat), while the two facts the question needs are short user messages that match one word each (and
 * borrow the rest of their score from the answers next to them), then the question.
 */
function assistantChat(): { messages: Message[]; facts: number[]; answers: number[] } {
  const messages: Message[] = [];
  const facts: number[] = [];
  const answers: number[] = [];
  const say = (role: Message['role'], content: string) => messages.push({ role, content });
  say('user', 'Can you suggest weekend hiking trails near the lake?');
  say('assistant', longAnswer('hiking trails', 'trail length, elevation, water'));
  say('user', 'I adopted a cat from the shelter last week.');
  answers.push(messages.length);
  say(
    'assistant',
    longAnswer('a cat adopted from a shelter', 'an adopted shelter cat needs food, a litter box and time'),
  );
  facts.push(messages.length);
  say('user', 'I named her Miso.');
  answers.push(messages.length);
  say('assistant', longAnswer('a newly adopted cat', 'an adopted cat from a shelter settles in with patience'));
  say('user', 'What is a good recipe for lentil soup?');
  say('assistant', longAnswer('lentil soup', 'lentils, onions, cumin, stock'));
  facts.push(messages.length);
  say('user', 'Miso sleeps on the windowsill.');
  answers.push(messages.length);
  say('assistant', longAnswer('where an adopted cat rests', 'a shelter cat you adopted picks a warm safe spot'));
  say('user', 'How do I change a bike tyre?');
  say('assistant', longAnswer('bike tyres', 'levers, a pump, a patch kit'));
  say('user', 'What name did I give the cat I adopted from the shelter, and where does she sleep?');
  return { messages, facts, answers };
}

describe('chats with long assistant answers', () => {
  it('a short message that states the fact is not displaced by the long answers that borrow its score', () => {
    const { messages, facts, answers } = assistantChat();
    const full = planContext({ messages, options: { maxTokens: 100_000, recent: 0 } }).plan.entries;
    const tokenOf = (index: number) => full[index]!.tokens;
    // Room for the question, one long answer and one fact, not two: the two facts fit with room to spare.
    const shortest = Math.min(...answers.map(tokenOf));
    const budget = tokenOf(messages.length - 1) + 3 + shortest + Math.max(...facts.map(tokenOf)) + 1;
    expect(tokenOf(facts[0]!) + tokenOf(facts[1]!) + 1).toBeLessThan(shortest);
    const result = planContext({ messages, options: { maxTokens: budget, recent: 0 } });
    console.log(
      budget,
      result.plan.entries.map((e) => `${e.index}:${e.tokens}:${e.weight.toFixed(2)}:${e.disposition}`).join(' '),
    );
    const kept = (index: number) => result.plan.entries[index]!.disposition === 'keep';
    expect(kept(facts[0]!)).toBe(true);
    expect(kept(facts[1]!)).toBe(true);
    expect(result.plan.tokensAfter).toBeLessThanOrEqual(budget);
  });

  it('cache_stable picks its fresh share the same way: the short facts before the long answers', () => {
    const { messages, facts, answers } = assistantChat();
    const full = planContext({ messages, options: { maxTokens: 100_000, recent: 0 } }).plan.entries;
    const tokenOf = (index: number) => full[index]!.tokens;
    // The newest exchange (the core), then room for the best-matching long answer and one short message, not two.
    const newest = tokenOf(messages.length - 2) + tokenOf(messages.length - 3);
    const best = answers[0]!;
    const budget = tokenOf(messages.length - 1) + 3 + newest + tokenOf(best) + 20;
    const result = planContext({ messages, options: { maxTokens: budget, recent: 0, algorithm: 'cache_stable' } });
    // "I adopted a cat from the shelter last week." and "I named her Miso.": short, both kept.
    expect(result.plan.entries[answers[0]! - 1]!.disposition).toBe('keep');
    expect(result.plan.entries[facts[0]!]!.disposition).toBe('keep');
    expect(result.plan.tokensAfter).toBeLessThanOrEqual(budget);
  });

  it('in a chat of short turns of similar length, weight alone decides (the longer fact-carrying message first)', () => {
    const messages: Message[] = [
      {
        role: 'user',
        content: 'Melanie: I painted a lake at sunrise last weekend, with the kids watching from the shore.',
      },
      { role: 'assistant', content: 'Caroline: That sounds lovely!' },
      { role: 'user', content: 'Melanie: painting helps me relax.' },
      { role: 'assistant', content: 'Caroline: I went to a support group.' },
      { role: 'user', content: 'Melanie: nice.' },
      { role: 'assistant', content: 'Caroline: thanks.' },
      { role: 'user', content: 'What did Melanie paint at sunrise by the lake?' },
    ];
    const entries = planContext({ messages, options: { maxTokens: 100_000 } }).plan.entries;
    const budget = entries[0]!.tokens + entries[6]!.tokens + 3;
    const result = planContext({ messages, options: { maxTokens: budget, recent: 0 } });
    expect(result.plan.entries[0]!.disposition).toBe('keep');
  });

  it('with all weights equal (static weighting) the newest messages are kept whatever their size', () => {
    const { messages } = assistantChat();
    const entries = planContext({ messages, options: { maxTokens: 100_000 } }).plan.entries;
    const last = messages.length - 1;
    const budget = entries[last]!.tokens + entries[last - 1]!.tokens + entries[last - 2]!.tokens + 3;
    const result = planContext({ messages, options: { maxTokens: budget, recent: 0, weighting: 'static' } });
    expect(result.plan.entries.filter((entry) => entry.disposition === 'keep').map((entry) => entry.index)).toEqual([
      last - 2,
      last - 1,
      last,
    ]);
  });

  it('the ranking is read from the chat: replies ≥ 2× the user messages → weight ÷ √tokens; similar turns or tool calls → weight', () => {
    const unit = (position: number, role: string, tokens: number, members = [position]): SelectionUnit => ({
      position,
      members,
      role,
      tokens,
      weight: 1,
      mandatory: false,
      excluded: false,
    });
    const chat = (user: number, reply: number) => [
      unit(0, 'user', user),
      unit(1, 'assistant', reply),
      unit(2, 'user', user),
    ];
    expect(fillRanking(chat(50, 360)).density).toBe(0.5);
    expect(fillRanking(chat(50, 100)).density).toBe(0.5);
    expect(fillRanking(chat(50, 99)).density).toBe(0);
    expect(fillRanking(chat(40, 36)).density).toBe(0);
    expect(fillRanking([...chat(50, 360), unit(3, 'assistant', 900, [3, 4])]).density).toBe(0);
    // A question about what the assistant said: its answer is a long reply, ranked by weight alone.
    expect(fillRanking(chat(50, 360), 'Can you remind me of the restaurant you recommended in Rome?').density).toBe(0);
    expect(fillRanking(chat(50, 360), 'Which game did you say was played at powwows?').density).toBe(0);
    expect(fillRanking(chat(50, 360), 'Can you recommend a show for tonight?').density).toBe(0.5);
  });
});
