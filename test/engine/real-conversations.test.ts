import { beforeAll, describe, expect, it } from 'vitest';
import { LOCOMO_DEV_PATH, loadLocomo, questionMessages, type LocomoConversation } from '../../bench/lib/locomo.js';
import { realDataAvailable } from '../helpers/real-data.js';
import {
  countMessageTokens,
  loadEncoder,
  LruTermCache,
  LruTokenCache,
  planContext,
  REPLY_PRIMING_TOKENS,
  validateMessageOrder,
  type EngineOptions,
  type PlanResult,
} from '../../src/domain/engine/index.js';

/**
 * Properties of planContext on the five real LoCoMo dev conversations (hundreds of turns each,
 * read from ../shared/data at test time: skipped with a line on a fresh clone without it, a failure in CI).
 * Every 25th question of each conversation, under 1000/2000/4000/8000 tokens, with gpt-4o.
 */
type Loose = { role?: string; content?: unknown; tool_calls?: Array<{ id: string }>; tool_call_id?: string };

const MODEL = 'gpt-4o';
const BUDGETS = [1000, 2000, 4000, 8000];
const QUESTION_STRIDE = 25;
const SYSTEM = {
  role: 'system',
  content: 'You are a helpful assistant who remembers the conversation between two friends.',
};
const encoder = loadEncoder('o200k_base');

/** Prompt tokens of the messages sent, counted exactly as the engine counts them. */
const promptTokens = (messages: readonly unknown[]) =>
  messages.reduce<number>((sum, message) => sum + countMessageTokens(message, encoder), REPLY_PRIMING_TOKENS);
const hasCalls = (message: Loose) => Array.isArray(message.tool_calls) && message.tool_calls.length > 0;
const chatOnly = (messages: readonly unknown[]) =>
  (messages as Loose[]).filter((message) => message.role !== 'system' && message.role !== 'developer');

/** Every question of the sample taken (every 25th), as full requests: system prompt, every turn, the question. */
function requests(conversation: LocomoConversation): unknown[][] {
  const out: unknown[][] = [];
  for (let index = 0; index < conversation.questions.length; index += QUESTION_STRIDE)
    out.push([SYSTEM, ...questionMessages(conversation, conversation.questions[index]!)]);
  return out;
}

/** What every plan promises, with `any` role alternation (messages are the input objects). */
function checkPlan(messages: unknown[], result: PlanResult, maxTokens: number) {
  const { plan } = result;
  expect(plan.entries).toHaveLength(messages.length);
  expect(plan.overBudget).toBe(false);
  expect(plan.budget.limitTokens).toBe(maxTokens);
  // Within the budget: the plan's figure, and an independent recount of what is sent.
  expect(plan.tokensAfter).toBeLessThanOrEqual(maxTokens);
  expect(promptTokens(result.messages)).toBe(plan.tokensAfter);
  expect(plan.tokensBefore).toBe(promptTokens(messages));
  // The input objects, in input order, exactly the entries kept.
  const order = result.messages.map((message) => messages.indexOf(message));
  expect(order.every((index) => index >= 0)).toBe(true);
  const outOfOrder = order.filter((index, position) => position > 0 && !(index > order[position - 1]!));
  expect(outOfOrder).toEqual([]);
  expect(order).toEqual(
    plan.entries
      .filter((entry) => entry.disposition === 'keep' || entry.disposition === 'pinned')
      .map((entry) => entry.index),
  );
  // The question last, the system prompt first, a user message first of the chat, a valid order.
  expect(result.messages.at(-1)).toBe(messages.at(-1));
  expect(result.messages[0]).toBe(messages[0]);
  expect(chatOnly(result.messages)[0]!.role).toBe('user');
  expect(validateMessageOrder(result.messages)).toEqual([]);
  expect(plan.tokensBefore).toBeGreaterThan(maxTokens); // the real conversations always need trimming at these budgets
}

/** With strict alternation: no two plain user (or assistant) messages in a row, still within budget and valid. */
function checkStrict(messages: unknown[], strict: PlanResult, any: PlanResult, maxTokens: number) {
  const sent = strict.messages as Loose[];
  // Positions of a message that repeats its predecessor's role (one list, not an expect per message: runs are long).
  const repeats = sent.flatMap((current, index) => {
    const previous = sent[index - 1];
    if (!previous) return [];
    const users = previous.role === 'user' && current.role === 'user';
    const assistants =
      previous.role === 'assistant' && current.role === 'assistant' && !hasCalls(previous) && !hasCalls(current);
    return users || assistants ? [index] : [];
  });
  expect(repeats).toEqual([]);
  // The same selection, only merged: a merged message names the message it joined and says why.
  const unmerged = strict.plan.entries.map(({ mergedInto, ...entry }) =>
    mergedInto === undefined
      ? entry
      : { ...entry, cause: any.plan.entries[entry.index]!.cause, reason: any.plan.entries[entry.index]!.reason },
  );
  expect(unmerged).toEqual(any.plan.entries);
  const merged = strict.plan.entries.filter((entry) => entry.mergedInto !== undefined);
  expect(merged.length).toBe(any.messages.length - sent.length);
  // Each merged message: merged for alternation, into a sent message of its own role.
  const badMerges = merged.filter((entry) => {
    const into = strict.plan.entries[entry.mergedInto!]!;
    return entry.cause !== 'role-alternation' || into.role !== entry.role || into.disposition === 'drop';
  });
  expect(badMerges).toEqual([]);
  expect(promptTokens(sent)).toBe(strict.plan.tokensAfter); // merged messages recounted: the plan counts what is sent
  expect(strict.plan.tokensAfter).toBeLessThanOrEqual(maxTokens);
  expect(validateMessageOrder(sent)).toEqual([]);
  expect(chatOnly(sent)[0]!.role).toBe('user');
  expect(sent[0]).toBe(messages[0]);
  const question = (messages.at(-1) as Loose).content as string;
  expect(sent.at(-1)!.role).toBe('user');
  expect(String(sent.at(-1)!.content).endsWith(question)).toBe(true);
}

describe.runIf(realDataAvailable(LOCOMO_DEV_PATH, 'planContext on the real LoCoMo conversations'))(
  'planContext on the real LoCoMo conversations',
  () => {
    let conversations: LocomoConversation[];

    beforeAll(() => {
      conversations = loadLocomo();
    });

    it('loads the five dev conversations', () => {
      expect(conversations).toHaveLength(5);
      for (const conversation of conversations) {
        expect(conversation.turns.length).toBeGreaterThan(300);
        expect(requests(conversation).length).toBeGreaterThanOrEqual(4);
      }
    });

    it.each([0, 1, 2, 3, 4])(
      'conversation %i: within budget, input objects in order, question last, user first, valid; strict alternates',
      (which) => {
        const conversation = conversations[which]!;
        const tokenCache = new LruTokenCache(200_000);
        let merges = 0;
        for (const messages of requests(conversation)) {
          for (const maxTokens of BUDGETS) {
            const options: Partial<EngineOptions> = { maxTokens };
            const any = planContext({ messages, model: MODEL, options, tokenCache });
            checkPlan(messages, any, maxTokens);
            const strict = planContext({
              messages,
              model: MODEL,
              options: { ...options, roleAlternation: 'strict' },
              tokenCache,
            });
            checkStrict(messages, strict, any, maxTokens);
            merges += any.messages.length - strict.messages.length;
          }
        }
        // Trimming real chats does leave same-role neighbours, so strict had something to do.
        expect(merges).toBeGreaterThan(0);
      },
    );

    it('a warm turn (shared term and token caches) plans exactly like a cold run with fresh caches', () => {
      for (const conversation of conversations) {
        const [first, second] = [conversation.questions[0]!, conversation.questions[QUESTION_STRIDE]!];
        const turn1: unknown[] = [SYSTEM, ...questionMessages(conversation, first)];
        const turn2: unknown[] = [
          ...turn1,
          { role: 'assistant', content: 'I am not sure, let me think about what you both said.' },
          { role: 'user', content: second.question },
        ];
        const termCache = new LruTermCache();
        const tokenCache = new LruTokenCache(200_000);
        for (const maxTokens of BUDGETS) {
          planContext({ messages: turn1, model: MODEL, options: { maxTokens }, termCache, tokenCache });
          const warm = planContext({ messages: turn2, model: MODEL, options: { maxTokens }, termCache, tokenCache });
          const cold = planContext({
            messages: turn2,
            model: MODEL,
            options: { maxTokens },
            termCache: new LruTermCache(),
            tokenCache: new LruTokenCache(200_000),
          });
          expect(warm.plan.tokenCacheHits).toBeGreaterThanOrEqual(turn1.length);
          expect(cold.plan.tokenCacheHits).toBe(0);
          expect({ ...warm.plan, tokenCacheHits: 0 }).toEqual({ ...cold.plan, tokenCacheHits: 0 });
          expect(warm.sequence).toEqual(cold.sequence);
          expect(warm.messages).toHaveLength(cold.messages.length);
          warm.messages.forEach((message, index) => expect(message).toBe(cold.messages[index]));
          checkPlan(turn2, warm, maxTokens);
        }
      }
    });

    describe('tool-heavy variant: synthetic tool calls inserted into a real conversation', () => {
      /**
       * After a user turn about every 40 turns, an assistant tool call (one or two parallel
       * calls) and its results are inserted; a few results repeat words of the questions asked
       * later, so some pairs are relevant and kept while most are dropped.
       */
      function withTools(conversation: LocomoConversation, questions: string[]) {
        const messages: unknown[] = [SYSTEM];
        let calls = 0;
        let nextAt = 7;
        conversation.turns.forEach((turn, index) => {
          messages.push(turn);
          if (index < nextAt || turn.role !== 'user') return;
          nextAt = index + 40;
          const parallel = calls % 2 === 1 ? 2 : 1;
          const ids = Array.from({ length: parallel }, (_, offset) => `call_${calls}_${offset}`);
          const topic = calls % 3 === 0 ? questions[calls % questions.length]! : `weather report for day ${calls}`;
          messages.push({
            role: 'assistant',
            content: null,
            tool_calls: ids.map((id) => ({
              id,
              type: 'function',
              function: { name: 'search_notes', arguments: JSON.stringify({ query: topic }) },
            })),
          });
          for (const id of ids)
            messages.push({
              role: 'tool',
              tool_call_id: id,
              content: `notes found for ${topic}: ${String(turn.content).slice(0, 200)}`,
            });
          calls += 1;
        });
        return { messages, calls };
      }

      it('tool calls and their results are kept or dropped together, within budget, in a valid order', () => {
        const seen = { keptPairs: 0, droppedPairs: 0, parallelKept: 0 };
        for (const conversation of conversations.slice(0, 3)) {
          const questions = conversation.questions
            .filter((_, index) => index % QUESTION_STRIDE === 0)
            .map((question) => question.question);
          const { messages: base, calls } = withTools(conversation, questions);
          expect(calls).toBeGreaterThanOrEqual(5);
          const tokenCache = new LruTokenCache(200_000);
          for (const question of questions.slice(0, 4)) {
            const messages = [...base, { role: 'user', content: question }];
            // The inserted pairs are well-formed (some real conversations open with speaker_b, an assistant message).
            expect(
              validateMessageOrder(messages).filter((violation) => violation.rule !== 'first-chat-not-user'),
            ).toEqual([]);
            for (const maxTokens of BUDGETS) {
              for (const roleAlternation of ['any', 'strict'] as const) {
                for (const weighting of ['keyword', 'smart'] as const) {
                  const result = planContext({
                    messages,
                    model: MODEL,
                    options: { maxTokens, roleAlternation, weighting },
                    tokenCache,
                  });
                  const { entries } = result.plan;
                  expect(result.plan.tokensAfter).toBeLessThanOrEqual(maxTokens);
                  expect(promptTokens(result.messages)).toBeLessThanOrEqual(maxTokens);
                  expect(validateMessageOrder(result.messages)).toEqual([]);
                  expect(result.messages.at(-1) === messages.at(-1) || roleAlternation === 'strict').toBe(true);
                  // Per call message: it and all its results share one fate.
                  (messages as Loose[]).forEach((message, index) => {
                    if (!hasCalls(message)) return;
                    const sentCall = entries[index]!.disposition === 'keep' || entries[index]!.disposition === 'pinned';
                    const results = message.tool_calls!.map((_, offset) => entries[index + 1 + offset]!);
                    for (const result of results) expect(result.role).toBe('tool');
                    for (const result of results)
                      expect(result.disposition === 'keep' || result.disposition === 'pinned').toBe(sentCall);
                    expect(result.messages.includes(message)).toBe(sentCall);
                    for (let offset = 1; offset <= results.length; offset++)
                      expect(result.messages.includes(messages[index + offset])).toBe(sentCall);
                    if (sentCall) {
                      const at = result.messages.indexOf(message);
                      expect(result.messages.slice(at + 1, at + 1 + results.length)).toEqual(
                        messages.slice(index + 1, index + 1 + results.length),
                      );
                      seen.keptPairs += 1;
                      if (results.length > 1) seen.parallelKept += 1;
                    } else seen.droppedPairs += 1;
                  });
                }
              }
            }
          }
        }
        // Both fates must actually occur, or the property proves little.
        expect(seen.keptPairs).toBeGreaterThan(0);
        expect(seen.droppedPairs).toBeGreaterThan(0);
        expect(seen.parallelKept).toBeGreaterThan(0);
      });
    });
  },
);
