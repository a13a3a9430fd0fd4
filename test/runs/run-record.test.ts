import { beforeAll, describe, expect, it } from 'vitest';
import { LOCOMO_DEV_PATH, loadLocomo, questionMessages, type LocomoConversation } from '../../bench/lib/locomo.js';
import { realDataAvailable } from '../helpers/real-data.js';
import { messageIds, planContext, type PlanInput, type PlanResult } from '../../src/domain/engine/index.js';
import {
  buildRunRecord,
  expandRun,
  PREVIEW_CHARS,
  type RunRecord,
  type StoredRun,
} from '../../src/features/context/runs/run-record.js';
import type { ChatMessage } from '../../src/core/messages/chat-message.js';

/**
 * The record of a run says what the engine's plan said: per message its role, tokens, score, disposition, cause and
 * reason, in input order, on real conversations and on the tool, flag and order cases; and `structure` keeps no text.
 */
const SYSTEM = { role: 'system', content: 'You remember the conversation between two friends.' };
const DISPOSITION = { keep: 'kept', pinned: 'pinned', summarize: 'dropped', drop: 'dropped' } as const;

function record(result: PlanResult, messages: readonly unknown[], inspect: 'structure' | 'preview' = 'structure') {
  const stored = buildRunRecord({
    id: '00000000a-0000abcd',
    time: 1,
    durationMs: 1,
    chat: 'c',
    user: 'u',
    model: 'gpt-4o',
    inspect,
    plan: result.plan,
    messages,
    flags: {},
    budgetSource: 'valve',
  });
  // What crosses the store is JSON.
  return { stored, run: expandRun(JSON.parse(JSON.stringify(stored)) as StoredRun) };
}

/** Every message of the record agrees with its plan entry. */
function expectAgrees(run: RunRecord, result: PlanResult) {
  const { entries } = result.plan;
  // One comparison of the whole list (a run has hundreds of messages; an expect per field per message is slow).
  expect(
    run.messages.map(({ index, role, tokens, disposition, cause, reason, mergedInto }) => ({
      index,
      role,
      tokens,
      disposition,
      cause,
      reason,
      mergedInto,
    })),
  ).toEqual(
    entries.map((entry) => ({
      index: entry.index,
      role: entry.role,
      tokens: entry.tokens,
      disposition: DISPOSITION[entry.disposition],
      cause: entry.cause,
      reason: entry.disposition === 'summarize' ? `${entry.reason} (no summary was made)` : entry.reason,
      mergedInto: entry.mergedInto,
    })),
  );
  // Scores as toBeCloseTo(weight, 3) checks them: within 0.0005.
  const offScores = entries
    .map((entry, index) => ({ index, score: run.messages[index]!.score, weight: entry.weight }))
    .filter(({ score, weight }) => !(Math.abs(score - weight) < 0.0005));
  expect(offScores).toEqual([]);
  const count = (d: string) => run.messages.filter((message) => message.disposition === d).length;
  expect(run.totals).toMatchObject({
    messages: entries.length,
    tokensBefore: result.plan.tokensBefore,
    tokensAfter: result.plan.tokensAfter,
    kept: count('kept'),
    pinned: count('pinned'),
    dropped: count('dropped'),
    summarized: 0,
  });
  // What was sent is exactly what the record calls kept or pinned.
  expect(count('kept') + count('pinned')).toBe(
    entries.filter((entry) => entry.disposition === 'keep' || entry.disposition === 'pinned').length,
  );
}

describe.runIf(realDataAvailable(LOCOMO_DEV_PATH, 'run records of the real LoCoMo conversations'))(
  'run records of the real LoCoMo conversations',
  () => {
    let conversations: LocomoConversation[];
    beforeAll(() => {
      conversations = loadLocomo();
    });

    it('every message of every run agrees with the plan, under several budgets and both alternation modes', () => {
      const causes = new Set<string>();
      for (const conversation of conversations) {
        for (const question of conversation.questions.filter((_, index) => index % 40 === 0)) {
          const messages = [SYSTEM, ...questionMessages(conversation, question)];
          for (const maxTokens of [1000, 4000]) {
            for (const roleAlternation of ['any', 'strict'] as const) {
              const result = planContext({ messages, model: 'gpt-4o', options: { maxTokens, roleAlternation } });
              const { run } = record(result, messages);
              expectAgrees(run, result);
              for (const message of run.messages) causes.add(message.cause);
            }
          }
        }
      }
      // Real chats exercise the common causes.
      expect([...causes].sort()).toEqual(
        expect.arrayContaining(['budget', 'current', 'recent', 'role-alternation', 'system']),
      );
    });

    it('structure keeps no message text; preview keeps the first 120 characters of each', () => {
      const conversation = conversations[0]!;
      const messages = [SYSTEM, ...questionMessages(conversation, conversation.questions[0]!)];
      const result = planContext({ messages, model: 'gpt-4o', options: { maxTokens: 2000 } });
      const structure = JSON.stringify(record(result, messages).stored);
      const texts = messages.map((message) => String(message.content));
      const leaked = texts.filter((text) => text.length >= 12 && structure.includes(text.slice(0, 12)));
      expect(leaked).toEqual([]);
      const { run } = record(result, messages, 'preview');
      for (const [index, message] of run.messages.entries()) {
        const text = texts[index]!.replace(/\s+/g, ' ').trim();
        expect(message.preview).toBe(text.slice(0, PREVIEW_CHARS));
        expect(message.preview!.length).toBeLessThanOrEqual(PREVIEW_CHARS);
      }
      expect(run.messages.some((message) => texts[message.index]!.length > PREVIEW_CHARS)).toBe(true);
    });
  },
);

describe('run records of tool, flag and order cases', () => {
  const long = (label: string) => `${label}: ${'the quick brown fox jumps over the lazy dog '.repeat(30)}`;
  const plan = (messages: ChatMessage[], input: Partial<PlanInput> = {}) => {
    const result = planContext({ messages, model: 'gpt-4o', options: { maxTokens: 600, recent: 2 }, ...input });
    const { run } = record(result, messages);
    expectAgrees(run, result);
    return run;
  };

  it('a tool call without its result and a result without its call are dropped as broken tool pairs', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'weather?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'a', type: 'function', function: { name: 'w', arguments: '{}' } }],
      },
      { role: 'user', content: 'and then?' },
      { role: 'tool', tool_call_id: 'zz', content: 'sunny' },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: 'thanks' },
    ];
    const run = plan(messages);
    expect(run.messages[1]).toMatchObject({ disposition: 'dropped', cause: 'tool-pair' });
    expect(run.messages[3]).toMatchObject({ disposition: 'dropped', cause: 'tool-pair' });
    expect(run.messages[1]!.reason).toMatch(/tool call/);
  });

  it('pinned and tagged messages, !context=N, the system prompt and the budget each have their cause', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'sys' },
      ...Array.from({ length: 10 }, (_, index): ChatMessage[] => [
        { role: 'user', content: long(`question ${index}`) },
        { role: 'assistant', content: long(`answer ${index}`) },
      ]).flat(),
      { role: 'user', content: 'the last question' },
    ];
    const ids = messageIds(messages);
    const marks = { [ids[1]!]: { pinned: true }, [ids[3]!]: { tags: ['keepme'] } };
    const run = plan(messages, { marks, keepTags: ['keepme'] });
    expect(run.messages[0]).toMatchObject({ disposition: 'kept', cause: 'system' });
    expect(run.messages[1]).toMatchObject({ disposition: 'pinned', cause: 'pinned' });
    expect(run.messages[3]).toMatchObject({ disposition: 'pinned', cause: 'tag', reason: 'kept by tag keepme' });
    expect(run.messages.at(-1)).toMatchObject({ disposition: 'kept', cause: 'current' });
    expect(run.messages.at(-2)).toMatchObject({ disposition: 'kept', cause: 'recent' });
    expect(run.messages.some((message) => message.disposition === 'dropped' && message.cause === 'budget')).toBe(true);
    const limited = planContext({
      messages,
      model: 'gpt-4o',
      options: { maxTokens: 100_000, contextTurns: 2 },
    });
    const flagged = record(limited, messages).run;
    expectAgrees(flagged, limited);
    expect(flagged.messages[1]).toMatchObject({ disposition: 'dropped', cause: 'flag', reason: 'outside !context=2' });
  });

  it('a leading assistant message left by trimming is removed for the first-user rule', () => {
    const messages: ChatMessage[] = [
      { role: 'assistant', content: 'Hello! How can I help?' },
      { role: 'user', content: 'hi' },
    ];
    const run = plan(messages, { options: { maxTokens: 1000, recent: 0, minChatMessages: 0 } });
    expect(run.messages[0]).toMatchObject({ disposition: 'dropped', cause: 'first-user' });
  });

  it('strict alternation: a merged message names the one it joined', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: long('one') },
      { role: 'assistant', content: long('two') },
      { role: 'user', content: 'short follow-up' },
      { role: 'user', content: 'the question' },
    ];
    const run = plan(messages, { options: { maxTokens: 100_000, roleAlternation: 'strict' } });
    expect(run.messages[3]).toMatchObject({ disposition: 'kept', cause: 'role-alternation', mergedInto: 2 });
  });
  it('a trimmed tool result carries its trimming (a JSON array: items left out); untrimmed runs store none', () => {
    const results = Array.from({ length: 400 }, (_, index) => ({
      id: index,
      title: index === 250 ? 'Quarterly revenue forecast for the Lisbon office' : `Routine note number ${index}`,
    }));
    const messages: ChatMessage[] = [
      { role: 'user', content: 'Search the notes.' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'search_notes', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: JSON.stringify({ results }) },
      { role: 'assistant', content: 'Found 400 notes.' },
      { role: 'user', content: 'What was the revenue forecast note about Lisbon?' },
    ];
    const result = planContext({ messages, model: 'gpt-4o', options: { maxTokens: 2000, recent: 2 } });
    const entry = result.plan.entries[2]!;
    expect(entry.trimmed).toMatchObject({ unit: 'items' });
    const { stored, run } = record(result, messages);
    expectAgrees(run, result);
    expect(run.messages[2]!.trimmed).toEqual(entry.trimmed);
    expect(run.messages.filter((message) => message.trimmed)).toHaveLength(1);
    expect(stored.columns.trimmed).toEqual({ 2: entry.trimmed });
    const whole = planContext({ messages, model: 'gpt-4o', options: { maxTokens: 100_000 } });
    expect(record(whole, messages).stored.columns.trimmed).toBeUndefined();
  });
});
