import { describe, expect, it } from 'vitest';
import {
  messageIds,
  planContext,
  validateMessageOrder,
  type EngineOptions,
  type MessageMark,
  type PlanResult,
} from '../../src/domain/engine/index.js';
import {
  assistant,
  prng,
  system,
  toolCalls,
  toolResult,
  user,
  words,
  type TestMessage,
} from './fixtures/conversations.js';
import { randomConversation, randomOptions } from './fixtures/random-conversation.js';

/**
 * `capForced`: what a user forced in (pins, keep tags, `recent` past the guaranteed messages) is kept only while it
 * fits the hard limit; the current turn, system messages and the guaranteed recent messages are kept whatever it
 * says. The engine's other promises hold: a valid order (tool calls with all their results, a user message first),
 * input order, the current question sent.
 */

/** A chat of `turns` question/answer pairs of about 40 tokens each, then the current question. */
function longChat(turns: number): TestMessage[] {
  const messages: TestMessage[] = [system('You are terse.')];
  for (let turn = 1; turn <= turns; turn++)
    messages.push(user(`q${turn} ${words(30)}`), assistant(`a${turn} ${words(30, 'ipsum')}`));
  messages.push(user('What now?'));
  return messages;
}

const sentTexts = (result: PlanResult) =>
  (result.messages as TestMessage[]).map((message) => String(message.content ?? '').split(' ')[0]);

describe('capForced: user-forced messages within the hard limit', () => {
  it('recent=1000 over a 500-token limit: the newest messages that fit, not all 101 (without it: all, over budget)', () => {
    const messages = longChat(50);
    const options = { maxTokens: 500, recent: 1000 };
    const lifted = planContext({ messages, model: 'gpt-4o', options });
    expect(lifted.messages).toHaveLength(messages.length);
    expect(lifted.plan.overBudget).toBe(true);
    const capped = planContext({
      messages,
      model: 'gpt-4o',
      options: { ...options, capForced: true, guaranteedRecent: 4 },
    });
    expect(capped.plan.overBudget).toBe(false);
    expect(capped.plan.tokensAfter).toBeLessThanOrEqual(500);
    expect(validateMessageOrder(capped.messages)).toEqual([]);
    // The newest messages, contiguous, in order, starting with a question.
    expect(capped.messages).toEqual([messages[0], ...messages.slice(messages.length - (capped.messages.length - 1))]);
    expect(capped.plan.capped).toEqual({
      limitTokens: 500,
      recent: { asked: 1000, kept: capped.messages.length - 1 },
      pinned: 0,
      tagged: 0,
    });
    expect(capped.plan.entries.at(-1)).toMatchObject({ disposition: 'keep', cause: 'current' });
    expect(capped.plan.entries.filter((entry) => entry.cause === 'recent').length).toBe(capped.messages.length - 2);
  });

  it('pins come first, then keep tags, then recent; a pin that does not fit is left to selection and reported', () => {
    const messages = longChat(30);
    const ids = messageIds(messages);
    const marks: Record<string, MessageMark> = {
      [ids[1]!]: { pinned: true }, // q1
      [ids[3]!]: { tags: ['decision'] }, // q2
      [ids[5]!]: { pinned: true }, // q3
    };
    // Room for about 9 messages beside the system prompt and the question.
    const result = planContext({
      messages,
      model: 'gpt-4o',
      marks,
      keepTags: ['decision'],
      options: { maxTokens: 400, recent: 1000, capForced: true, guaranteedRecent: 2 },
    });
    expect(result.plan.tokensAfter).toBeLessThanOrEqual(400);
    expect(sentTexts(result)).toEqual(expect.arrayContaining(['q1', 'q2', 'q3']));
    expect(result.plan.entries[1]).toMatchObject({ disposition: 'pinned', cause: 'pinned' });
    expect(result.plan.entries[3]).toMatchObject({ disposition: 'pinned', cause: 'tag' });
    expect(validateMessageOrder(result.messages)).toEqual([]);
    // A pinned message longer than the whole limit: held back, the rest still within the limit.
    const big = [...messages];
    big[5] = user(`q3 ${words(600)}`);
    const held = planContext({
      messages: big,
      model: 'gpt-4o',
      marks: { ...marks, [messageIds(big)[5]!]: { pinned: true } },
      keepTags: ['decision'],
      options: { maxTokens: 400, recent: 1000, capForced: true, guaranteedRecent: 2 },
    });
    expect(held.plan.overBudget).toBe(false);
    expect(sentTexts(held)).not.toContain('q3');
    expect(held.plan.capped).toMatchObject({ pinned: 1, tagged: 0 });
    expect(held.plan.entries[5]).toMatchObject({ disposition: 'drop', cause: 'budget' });
  });

  it('parallel tool calls stay whole and first: a unit that does not fit ends the recent run', () => {
    const messages: TestMessage[] = [system('Tools.')];
    for (let turn = 1; turn <= 12; turn++) {
      messages.push(user(`q${turn} ${words(10)}`));
      messages.push(toolCalls([`c${turn}a`, 'search'], [`c${turn}b`, 'fetch']));
      messages.push(
        toolResult(`c${turn}b`, `r${turn}b ${words(40)}`),
        toolResult(`c${turn}a`, `r${turn}a ${words(5)}`),
      );
      messages.push(assistant(`a${turn} ${words(10)}`));
    }
    messages.push(user('And the last one?'));
    for (const roleAlternation of ['any', 'strict'] as const) {
      const result = planContext({
        messages,
        model: 'gpt-4o',
        options: { maxTokens: 350, recent: 1000, capForced: true, guaranteedRecent: 1, roleAlternation },
      });
      expect(result.plan.tokensAfter).toBeLessThanOrEqual(350);
      expect(validateMessageOrder(result.messages)).toEqual([]);
      const sent = result.messages as TestMessage[];
      for (const [index, message] of sent.entries()) {
        if (!Array.isArray(message.tool_calls)) continue;
        const results = sent.slice(index + 1, index + 3).map((next) => next.tool_call_id);
        expect(results.sort()).toEqual((message.tool_calls as Array<{ id: string }>).map((call) => call.id).sort());
      }
      expect(sent.at(-1)).toEqual(messages.at(-1));
    }
  });

  it('the current turn over the limit alone is still sent; nothing forced is added to it', () => {
    const messages = longChat(20);
    messages[messages.length - 1] = user(`Now ${words(700)}`);
    const options: Partial<EngineOptions> = { maxTokens: 300, recent: 4 };
    const control = planContext({ messages, model: 'gpt-4o', options });
    const lifted = planContext({
      messages,
      model: 'gpt-4o',
      options: { ...options, recent: 1000, capForced: true, guaranteedRecent: 4 },
    });
    expect(control.plan.overBudget).toBe(true);
    expect(lifted.messages).toEqual(control.messages);
    expect(lifted.plan.overBudget).toBe(true);
  });

  it('off (the default): pins and recent are kept whatever the budget, and run ids do not change', () => {
    const messages = longChat(10);
    const options: Partial<EngineOptions> = { maxTokens: 100, recent: 1000 };
    const today = planContext({ messages, model: 'gpt-4o', options });
    const off = planContext({
      messages,
      model: 'gpt-4o',
      options: { ...options, capForced: false, guaranteedRecent: 3 },
    });
    expect(today.messages).toHaveLength(messages.length);
    expect(off.messages).toEqual(today.messages);
    expect(off.plan.runId).toBe(today.plan.runId);
    expect(today.plan.capped).toBeUndefined();
  });

  it.each([11, 4242, 90210])('seed %i: random chats, pins, tags and recent stay within the limit', (seed) => {
    const random = prng(seed);
    let capped = 0;
    for (let run = 0; run < 80; run += 1) {
      const messages = randomConversation(random);
      const options = randomOptions(random);
      const ids = messageIds(messages);
      const marks: Record<string, MessageMark> = {};
      for (const id of ids) if (random() < 0.2) marks[id] = random() < 0.5 ? { pinned: true } : { tags: ['t'] };
      const guaranteed = Math.floor(random() * 3);
      const roleAlternation = random() < 0.3 ? 'strict' : 'any';
      const common = { messages, model: 'gpt-4o', keepTags: ['t'] };
      // What is kept whatever the budget: the current turn, system messages, the guaranteed recent messages.
      const base = planContext({
        ...common,
        options: { ...options, roleAlternation, recent: guaranteed, capForced: true, guaranteedRecent: guaranteed },
      });
      const result = planContext({
        ...common,
        marks,
        options: { ...options, roleAlternation, recent: 1000, capForced: true, guaranteedRecent: guaranteed },
      });
      expect(validateMessageOrder(result.messages)).toEqual([]);
      const order = result.messages.map((message) => messages.indexOf(message as TestMessage));
      if (roleAlternation === 'any' && options.algorithm !== 'prefix_cache' && options.algorithm !== 'cache_stable')
        expect(order).toEqual([...order].sort((a, b) => a - b));
      const lastUser = messages.map((message) => message.role).lastIndexOf('user');
      if (lastUser >= 0 && roleAlternation === 'any') expect(result.messages).toContain(messages[lastUser]);
      expect(result.plan.overBudget).toBe(base.plan.overBudget);
      if (result.plan.budget.limitTokens > 0 && !base.plan.overBudget)
        expect(result.plan.tokensAfter).toBeLessThanOrEqual(result.plan.budget.limitTokens);
      if (base.plan.overBudget && !options.summarize) expect(result.messages).toEqual(base.messages);
      capped += Number(result.plan.capped !== undefined);
    }
    expect(capped).toBeGreaterThan(0);
  });
});
