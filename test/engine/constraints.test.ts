import { describe, expect, it } from 'vitest';
import {
  insertSummary,
  planContext,
  validateMessageOrder,
  type PlanInput,
  type PlanResult,
} from '../../src/domain/engine/index.js';
import {
  assistant,
  chat,
  resend,
  system,
  toolCalls,
  toolResult,
  user,
  words,
  type TestMessage,
} from './fixtures/conversations.js';

/** Dispositions by index. */
const fates = (result: PlanResult) => result.plan.entries.map((entry) => entry.disposition);
/** True when every message of `indexes` shares the same fate (all sent or none). */
const together = (result: PlanResult, indexes: number[]) =>
  new Set(indexes.map((index) => result.plan.entries[index]!.disposition === 'drop')).size === 1;
/** The hard-limit promise: within the limit, or flagged. */
function expectWithinOrFlagged(result: PlanResult) {
  const limit = result.plan.budget.limitTokens;
  if (limit > 0 && result.plan.tokensAfter > limit) expect(result.plan.overBudget).toBe(true);
  else expect(result.plan.overBudget).toBe(false);
}

const parallel: TestMessage[] = [
  system('tools available'),
  user(`first ${words(30)}`),
  assistant(`reply ${words(30)}`),
  user('look up three things'),
  toolCalls(['a', 'search'], ['b', 'fetch'], ['c', 'lookup']),
  toolResult('b', `result b ${words(25)}`),
  toolResult('a', `result a ${words(25)}`),
  toolResult('c', `result c ${words(25)}`),
  assistant(`summary ${words(20)}`),
  user(`next question ${words(10)}`),
  assistant('sure'),
  user('final'),
];

describe('tool calls', () => {
  it.each([40, 60, 80, 100, 150, 200, 250, 300, 400, 1000])(
    'parallel calls and their results stay together (budget %i)',
    (maxTokens) => {
      for (const algorithm of ['greedy', 'recency', 'dependency', 'prefix_cache', 'cache_stable'] as const) {
        const result = planContext({ messages: parallel, options: { maxTokens, algorithm, recent: 2 } });
        expect(together(result, [4, 5, 6, 7])).toBe(true);
        expect(validateMessageOrder(result.messages)).toEqual([]);
        expectWithinOrFlagged(result);
      }
    },
  );

  it('a call and its result are never split, even when that is the only problem', () => {
    const messages = [user('q'), toolCalls(['x', 'tiny']), toolResult('x', words(200)), assistant('a'), user('again')];
    for (let maxTokens = 20; maxTokens < 400; maxTokens += 7) {
      const result = planContext({ messages, options: { maxTokens, recent: 1, weighting: 'static' } });
      expect(together(result, [1, 2])).toBe(true);
      expect(validateMessageOrder(result.messages)).toEqual([]);
    }
  });

  it.each([
    ['result without call', [user('q'), toolResult('zz', 'lost'), assistant('a'), user('b')], [1]],
    ['call without result', [user('q'), toolCalls(['k', 'f']), assistant('a'), user('b')], [1]],
    [
      'one of two parallel results missing',
      [user('q'), toolCalls(['k', 'f'], ['m', 'g']), toolResult('k', 'r'), assistant('a'), user('b')],
      [1, 2],
    ],
    [
      'result separated from its call by a user message',
      [user('q'), toolCalls(['k', 'f']), user('interrupt'), toolResult('k', 'r'), user('b')],
      [1, 3],
    ],
    [
      'result answering another id',
      [user('q'), toolCalls(['k', 'f']), toolResult('k', 'r'), toolResult('q', 'r2'), user('b')],
      [3],
    ],
    [
      'duplicate result for one call',
      [user('q'), toolCalls(['k', 'f']), toolResult('k', 'r'), toolResult('k', 'r'), user('b')],
      [3],
    ],
    ['trailing call without result', [user('q'), toolCalls(['k', 'f'])], [1]],
  ])('orphans are dropped and the output is valid: %s', (_name, messages, orphanIndexes) => {
    const result = planContext({ messages, options: { full: true } });
    expect(validateMessageOrder(messages).length).toBeGreaterThan(0);
    expect(validateMessageOrder(result.messages)).toEqual([]);
    orphanIndexes.forEach((index) => expect(result.plan.entries[index]!.disposition).toBe('drop'));
    expect(result.plan.entries.filter((entry) => entry.disposition === 'drop').length).toBe(orphanIndexes.length);
  });
});

describe('order and keep constraints', () => {
  it('the first chat message sent is a user message', () => {
    const messages = [
      system('s'),
      user(words(300, 'huge')),
      assistant('bread bread bread'),
      user(words(40, 'filler')),
      assistant('ok'),
      user('bread?'),
    ];
    for (const algorithm of ['greedy', 'recency', 'dependency', 'prefix_cache', 'cache_stable'] as const) {
      const result = planContext({ messages, options: { maxTokens: 120, recent: 1, algorithm, weighting: 'keyword' } });
      const firstChat = (result.messages as TestMessage[]).find((message) => message.role !== 'system');
      expect(firstChat?.role).toBe('user');
      expect(validateMessageOrder(result.messages)).toEqual([]);
    }
  });

  it('a recent assistant message that would lead is removed when its question does not fit', () => {
    const messages = [user(words(400, 'huge')), assistant('short answer'), user('next')];
    const result = planContext({ messages, options: { maxTokens: 40, recent: 2 } });
    expect(fates(result)).toEqual(['drop', 'drop', 'keep']);
    expect(result.plan.entries[1]!.reason).toMatch(/first chat message/);
  });

  it.each([0, 1, 2, 4, 6])('the last %i messages are kept whatever the budget', (recent) => {
    const messages = chat(12, 30);
    const result = planContext({ messages, options: { maxTokens: 10, recent } });
    const sent = new Set(result.messages);
    messages.slice(messages.length - recent).forEach((message) => expect(sent.has(message)).toBe(true));
    expect(sent.has(messages[messages.length - 1])).toBe(true);
    expect(result.plan.overBudget).toBe(true);
  });

  it('the last user message is kept even after a tool turn, with the whole current turn', () => {
    const messages = [
      user('old'),
      assistant('old reply'),
      user(`now ${words(50)}`),
      toolCalls(['t', 'search']),
      toolResult('t', words(80)),
    ];
    const result = planContext({ messages, options: { maxTokens: 30, recent: 0 } });
    expect(fates(result)).toEqual(['drop', 'drop', 'keep', 'keep', 'keep']);
    expect(result.plan.overBudget).toBe(true);
  });

  it('system prompt tokens count against the budget', () => {
    const messages = [system(words(60, 'rule')), ...chat(10, 10), user('question')];
    const result = planContext({ messages, options: { maxTokens: 250, recent: 1 } });
    const systemTokens = result.plan.entries[0]!.tokens;
    expect(systemTokens).toBeGreaterThan(100);
    expect(result.plan.tokensAfter).toBeLessThanOrEqual(250);
    expect(result.plan.entries.some((entry) => entry.disposition === 'drop')).toBe(true);
    const chatSent = result.plan.entries.filter((entry) => entry.role !== 'system' && entry.disposition !== 'drop');
    expect(chatSent.reduce((sum, entry) => sum + entry.tokens, 0)).toBeLessThanOrEqual(250 - systemTokens);
  });

  it('a budget smaller than the system prompt keeps system + last user and flags overBudget', () => {
    const messages = [system(words(100, 'rule')), ...chat(6, 10), user('question')];
    const result = planContext({ messages, options: { maxTokens: 50, recent: 0 } });
    expect(result.messages).toEqual([messages[0], messages[messages.length - 1]]);
    expect(result.plan.overBudget).toBe(true);
    expect(result.plan.tokensAfter).toBeGreaterThan(50);
    expect(result.plan.notes.join(' ')).toMatch(/over budget/);
  });

  it.each([1, 3, 5])('minChatMessages=%i keeps the newest messages by position', (minChatMessages) => {
    const messages = chat(9, 30);
    const result = planContext({
      messages,
      options: { maxTokens: 5, recent: 0, minChatMessages, weighting: 'keyword' },
    });
    const keptIndexes = result.plan.entries.filter((entry) => entry.disposition !== 'drop').map((entry) => entry.index);
    const expected = Array.from({ length: minChatMessages }, (_, offset) => 9 - minChatMessages + offset);
    expect(keptIndexes.slice(-minChatMessages)).toEqual(expected);
  });

  it.each([60, 90, 120, 200, 333])('repairs never push the total over the budget (%i)', (maxTokens) => {
    const messages = [system('s'), ...chat(16, 12), user('end')];
    for (const algorithm of ['greedy', 'recency', 'dependency', 'prefix_cache', 'cache_stable'] as const) {
      const result = planContext({ messages, options: { maxTokens, algorithm, recent: 1 } });
      expect(result.plan.tokensAfter).toBeLessThanOrEqual(maxTokens);
      expect(result.plan.overBudget).toBe(false);
    }
  });

  it('pinned and tagged messages are kept, with disposition pinned', () => {
    const messages = chat(12, 20);
    const ids = planContext({ messages }).plan.entries.map((entry) => entry.id);
    const input: PlanInput = {
      messages,
      options: { maxTokens: 120, recent: 1 },
      marks: { [ids[2]!]: { pinned: true }, [ids[4]!]: { tags: ['decision'] } },
      keepTags: ['decision'],
    };
    const result = planContext(input);
    expect(result.plan.entries[2]!.disposition).toBe('pinned');
    expect(result.plan.entries[4]!.disposition).toBe('pinned');
    expect(result.plan.entries[4]!.reason).toMatch(/decision/);
  });

  it('!context=N keeps only the last N turns even when everything fits', () => {
    const messages = [system('s'), ...chat(10, 5), user('last')];
    const result = planContext({ messages, options: { contextTurns: 2, recent: 4 } });
    const sent = result.messages as TestMessage[];
    expect(sent[0]).toBe(messages[0]);
    expect(sent.slice(1)).toEqual(messages.slice(-3));
    expect(result.plan.entries[1]!.reason).toMatch(/context=2/);
  });

  it('full sends every valid message and ignores the token limit', () => {
    const messages = chat(10, 40);
    const result = planContext({ messages, options: { full: true, maxTokens: 10 } });
    expect(result.messages).toEqual(messages);
    expect(result.plan.overBudget).toBe(false);
  });

  it.each([
    ['empty conversation', []],
    ['only a system prompt', [system('s')]],
    ['only assistant messages', [assistant('a'), assistant('b')]],
    ['non-object entries', [null, 'x', 3, user('q')]],
  ])('%s gives a valid result', (_name, messages) => {
    const result = planContext({ messages: messages as unknown[], options: { maxTokens: 100 } });
    expect(validateMessageOrder(result.messages)).toEqual([]);
    expect(result.plan.entries.length).toBe(messages.length);
  });

  it('a huge message is dropped and the rest still fits', () => {
    const messages = [
      user('start'),
      assistant(words(5000, 'big')),
      user('small question'),
      assistant('small answer'),
      user('end'),
    ];
    const result = planContext({ messages, options: { maxTokens: 200, recent: 2 } });
    expect(result.plan.entries[1]!.disposition).toBe('drop');
    expect(result.plan.tokensAfter).toBeLessThanOrEqual(200);
    expect(validateMessageOrder(result.messages)).toEqual([]);
  });
});

describe('pass-through', () => {
  it('kept messages are the input objects, unknown fields and images untouched, input not mutated', () => {
    const image = { type: 'image_url', image_url: { url: 'https://example.com/a.png', detail: 'high' } };
    const messages = [
      system('s'),
      user([{ type: 'text', text: 'see' }, image], { id: 'owui-1', custom: { x: 1 } }),
      assistant('ok', { usage: { a: 1 } }),
      user('more'),
    ];
    const snapshot = resend(messages);
    const result = planContext({ messages, options: { maxTokens: 100000 } });
    result.messages.forEach((message, index) => expect(message).toBe(messages[index]));
    expect(messages).toEqual(snapshot);
    expect(JSON.stringify(result.messages)).toBe(JSON.stringify(snapshot));
  });

  it('an inserted summary never makes two user messages in a row', () => {
    const messages = [system('s'), ...chat(20, 20), user('end')];
    const result = planContext({ messages, options: { maxTokens: 150, summarize: true, recent: 2 } });
    const withSummary = insertSummary(result, 'they talked about topics') as TestMessage[];
    expect(withSummary.length).toBe(result.messages.length + 1);
    withSummary.forEach((message, index) => {
      if (index > 0) expect(message.role === 'user' && withSummary[index - 1]!.role === 'user').toBe(false);
    });
    expect(validateMessageOrder(withSummary)).toEqual([]);
    expect(withSummary[result.plan.summaryInsertAt]!.role).toBe('system');
  });
});
