import { beforeAll, describe, expect, it } from 'vitest';
import { replayMessages, replayRequests } from '../../bench/lib/chat-replay.js';
import { LOCOMO_DEV_PATH, loadLocomo, type LocomoConversation } from '../../bench/lib/locomo.js';
import { generateToolConversation } from '../../bench/lib/tool-chat-generator.js';
import {
  countMessageTokens,
  loadEncoder,
  LruTokenCache,
  messageIds,
  planContext,
  REPLY_PRIMING_TOKENS,
  validateMessageOrder,
  type EngineOptions,
  type PlanResult,
} from '../../src/domain/engine/index.js';
import { CORE_MAX_GAP, FRESH_THRESHOLD } from '../../src/domain/engine/selection/cache-stable-selection.js';
import { validPrefix } from '../../src/domain/engine/selection/valid-prefix.js';
import { realDataAvailable } from '../helpers/real-data.js';

/**
 * The cache-stable selection replayed as chats: each request gets the chat's previous prompt
 * (`previousSequence`), as the context filter gives it. On the five real LoCoMo dev conversations
 * (bench:cache's protocol: a question every 6 turns from twice the budget on, the question not kept)
 * and on seeded tool-use chats: the budget, the order, whole tool pairs, pins and tags, the stable
 * prefix across turns and the cuts.
 */
type Loose = { role?: string; content?: unknown; tool_calls?: unknown[]; tool_call_id?: string };

const MODEL = 'gpt-4o';
const SYSTEM = {
  role: 'system',
  content: 'You are a helpful assistant who remembers the conversation between two friends.',
};
const encoder = loadEncoder('o200k_base');
const promptTokens = (messages: readonly unknown[]) =>
  messages.reduce<number>((sum, message) => sum + countMessageTokens(message, encoder), REPLY_PRIMING_TOKENS);
const RESTART_NOTE = /^cache_stable: the core restarted/;
const FULL_NOTE = /^cache_stable: the core is full/;
const AFTER_CORE_NOTE = /^cache_stable: \d+ message\(s\) picked for the question last time sent again after the core/;

/** Input indexes of the messages sent, in send order. */
const sendOrder = (messages: readonly unknown[], result: PlanResult) =>
  result.messages.map((message) => messages.indexOf(message));

/** The history sent before the recalled (fresh) part: the send order up to its first step back. */
function historyPart(order: readonly number[]): number[] {
  const descent = order.findIndex((index, position) => position > 0 && index < order[position - 1]!);
  return descent < 0 ? [...order] : order.slice(0, descent);
}

/** Input indexes of the recent messages before the current turn (the last `recent` messages are the two), ascending. */
const recentIndexes = (result: PlanResult) =>
  result.plan.entries.filter((entry) => entry.reason === 'recent').map((entry) => entry.index);

/**
 * Ids the prompt must open with when the core was carried without a cut: the previous prompt's still-valid prefix
 * (its messages still there, in order), up to the first of them that is one of the recent messages now (those are
 * sent after the fresh share when it follows the core).
 */
function carriedIds(previous: readonly string[], messages: readonly unknown[], result: PlanResult): string[] {
  const ids = messageIds(messages as Parameters<typeof messageIds>[0]);
  const recent = new Set(recentIndexes(result).map((index) => ids[index]));
  const carried = previous.slice(0, validPrefix(previous, ids).length);
  const stop = carried.findIndex((id) => recent.has(id));
  return stop < 0 ? carried : carried.slice(0, stop);
}

/** What every cache_stable plan promises (input objects, budget, order, the question last). */
function checkPlan(messages: unknown[], result: PlanResult, maxTokens: number): number[] {
  const { plan } = result;
  expect(plan.algorithm).toBe('cache_stable');
  expect(plan.overBudget).toBe(false);
  expect(plan.tokensAfter).toBeLessThanOrEqual(maxTokens);
  expect(promptTokens(result.messages)).toBe(plan.tokensAfter);
  const order = sendOrder(messages, result);
  expect(order.every((index) => index >= 0)).toBe(true);
  expect(new Set(order).size).toBe(order.length);
  expect([...order].sort((a, b) => a - b)).toEqual(
    plan.entries
      .filter((entry) => entry.disposition === 'keep' || entry.disposition === 'pinned')
      .map((entry) => entry.index),
  );
  if (plan.notes.some((note) => AFTER_CORE_NOTE.test(note))) {
    // The fresh share right after the core: the recent messages (the current turn the last of them) close the prompt,
    // in order, and the prompt repeats through the messages picked again.
    const recent = recentIndexes(result);
    expect(order.slice(order.length - recent.length - 1, -1)).toEqual(recent);
    expect(result.stablePrefix).toBe(order.length - recent.length - 1);
  } else {
    // At most one step back: the history in order, then the fresh picks in order, then the current turn.
    const descents = order.filter((index, position) => position > 0 && index < order[position - 1]!).length;
    expect(descents).toBeLessThanOrEqual(1);
  }
  expect(result.messages.at(-1)).toBe(messages.at(-1));
  expect(validateMessageOrder(result.messages)).toEqual([]);
  expect(result.sequence).toEqual(order.map((index) => plan.entries[index]!.id));
  return order;
}

describe.runIf(realDataAvailable(LOCOMO_DEV_PATH, 'cache_stable on the real LoCoMo conversations'))(
  'cache_stable replayed as chats on the real LoCoMo conversations',
  () => {
    let conversations: LocomoConversation[];
    beforeAll(() => {
      conversations = loadLocomo();
    });

    it.each([
      [0, 2000],
      [1, 2000],
      [2, 4000],
      [3, 2000],
      [4, 4000],
    ])(
      'conversation %i at %i tokens: budget, order, pins, tags; the prefix carries over; a full core stays as sent',
      (which, budget) => {
        const conversation = conversations[which]!;
        const tokenCache = new LruTokenCache(200_000);
        // One pinned and one tagged early turn: kept in every request, wherever the core is.
        const pinned = 3;
        const tagged = 7;
        const ids = messageIds([SYSTEM, ...conversation.turns]);
        const marks = { [ids[pinned + 1]!]: { pinned: true }, [ids[tagged + 1]!]: { tags: ['plan'] } };
        const options: Partial<EngineOptions> = { maxTokens: budget, algorithm: 'cache_stable' };
        const history = conversation.turns.map((turn) => countMessageTokens(turn, encoder));
        let previous: { order: number[]; sequence: string[] } | undefined;
        let carried = 0;
        let full = 0;
        let restarts = 0;
        let afterCore = 0;
        const requests = replayRequests(conversation, history, budget, undefined, which).slice(0, 20);
        expect(requests.length).toBeGreaterThanOrEqual(10);
        for (const request of requests) {
          const messages: unknown[] = [SYSTEM, ...replayMessages(conversation, request)];
          const result = planContext({
            messages,
            model: MODEL,
            options,
            tokenCache,
            marks,
            keepTags: ['plan'],
            previousSequence: previous?.sequence,
          });
          const order = checkPlan(messages, result, budget);
          expect(order[0]).toBe(0); // the system prompt first
          expect(order).toContain(pinned + 1);
          expect(order).toContain(tagged + 1);
          const restarted = result.plan.notes.some((note) => RESTART_NOTE.test(note));
          const isFull = result.plan.notes.some((note) => FULL_NOTE.test(note));
          if (result.plan.notes.some((note) => AFTER_CORE_NOTE.test(note))) afterCore += 1;
          if (previous) {
            const before = carriedIds(previous.sequence, messages, result);
            const now = result.sequence.slice(0, before.length);
            let shared = 0;
            while (shared < before.length && now[shared] === before[shared]) shared += 1;
            if (restarted) restarts += 1;
            else if (!isFull) {
              // The core had room: what was sent last time in order is sent again first, unchanged (the cached prefix),
              // up to the messages that are recent now.
              expect(now).toEqual(before);
              carried += 1;
            } else {
              // A full core stays as sent: most of the history sent last time leads again, only its newest part is left
              // out (newer history waits outside the core).
              full += 1;
              expect(shared).toBeGreaterThan(before.length / 2);
            }
          }
          // What is sent next time as the previous prompt: the question is a side branch, not kept.
          previous = {
            order: order.slice(0, -1),
            sequence: result.sequence.slice(0, -1),
          };
        }
        // The core fills up and then stays; it rarely starts again.
        expect(carried + full).toBeGreaterThan(0);
        // Both places of the fresh share occur: after the recent messages, and right after the core.
        expect(afterCore).toBeGreaterThan(0);
        expect(afterCore).toBeLessThan(requests.length);
        expect(full).toBeGreaterThan(0);
        expect(restarts).toBeLessThan(carried + full);
      },
    );

    it('picks for the question only messages whose weight clears the threshold, leaving the rest of the room unused', () => {
      const conversation = conversations[2]!;
      const budget = 4000;
      const tokenCache = new LruTokenCache(200_000);
      const history = conversation.turns.map((turn) => countMessageTokens(turn, encoder));
      let previous: string[] | undefined;
      let picked = 0;
      let roomLeft = 0;
      for (const request of replayRequests(conversation, history, budget, undefined, 2).slice(0, 20)) {
        const messages: unknown[] = [SYSTEM, ...replayMessages(conversation, request)];
        const result = planContext({
          messages,
          model: MODEL,
          options: { maxTokens: budget, algorithm: 'cache_stable' },
          tokenCache,
          previousSequence: previous,
        });
        const order = checkPlan(messages, result, budget);
        // (With the fresh share right after the core, where the core ends is not visible in the order: left out.)
        if (result.plan.notes.some((note) => AFTER_CORE_NOTE.test(note))) {
          previous = result.sequence.slice(0, -1);
          continue;
        }
        const core = new Set(historyPart(order));
        const question = messages.length - 1;
        const fresh = order.slice(historyPart(order).length, -1);
        // Outside the core: every history message (the system prompt and the question aside) the core does not hold.
        const outside = result.plan.entries.filter(
          (entry) => entry.index > 0 && entry.index !== question && !core.has(entry.index),
        );
        const weights = outside.map((entry) => entry.weight);
        const low = Math.min(...weights);
        const threshold = low + FRESH_THRESHOLD * (Math.max(...weights) - low);
        for (const index of fresh) expect(result.plan.entries[index]!.weight).toBeGreaterThanOrEqual(threshold);
        picked += fresh.length;
        // A message below the threshold that would still fit stays out: the fresh share is what the question needs.
        const free = budget - result.plan.tokensAfter;
        if (outside.some((entry) => entry.weight < threshold && !fresh.includes(entry.index) && entry.tokens <= free))
          roomLeft += 1;
        previous = result.sequence.slice(0, -1);
      }
      expect(picked).toBeGreaterThan(0);
      expect(roomLeft).toBeGreaterThan(0);
    });

    it('without a previous prompt, or with one from another chat, it starts afresh within the budget', () => {
      const conversation = conversations[0]!;
      const other = conversations[1]!;
      const history = conversation.turns.map((turn) => countMessageTokens(turn, encoder));
      const [request] = replayRequests(conversation, history, 2000);
      const messages: unknown[] = [SYSTEM, ...replayMessages(conversation, request!)];
      const stranger = messageIds(other.turns);
      for (const previousSequence of [undefined, [], stranger]) {
        const result = planContext({
          messages,
          model: MODEL,
          options: { maxTokens: 2000, algorithm: 'cache_stable' },
          previousSequence,
        });
        checkPlan(messages, result, 2000);
        expect(result.plan.prefixReused).toBe(0);
      }
    });
  },
);

describe('cache_stable on tool-use chats replayed turn by turn', () => {
  it.each([1, 2, 3, 4])('seed %i: tool pairs whole and valid at every turn, prefix carried', (seed) => {
    const { messages: chat } = generateToolConversation({ seed });
    const tokenCache = new LruTokenCache(50_000);
    const budget = 1500;
    let previous: string[] | undefined;
    let requests = 0;
    let reused = 0;
    let afterCore = 0;
    for (let end = 2; end <= chat.length; end += 1) {
      if (chat[end - 1]!.role !== 'user') continue;
      const messages: unknown[] = chat.slice(0, end);
      const result = planContext({
        messages,
        model: MODEL,
        options: { maxTokens: budget, algorithm: 'cache_stable' },
        tokenCache,
        previousSequence: previous,
      });
      checkPlan(messages, result, budget);
      if (result.plan.notes.some((note) => AFTER_CORE_NOTE.test(note))) afterCore += 1;
      // Every tool call sent has all its results right after it, and every result its call.
      const sent = result.messages as Loose[];
      sent.forEach((message, index) => {
        if (message.role !== 'assistant' || !Array.isArray(message.tool_calls)) return;
        const results = sent.slice(index + 1, index + 1 + message.tool_calls.length);
        expect(results.every((result) => result.role === 'tool')).toBe(true);
      });
      if (result.plan.tokensBefore > budget) {
        requests += 1;
        if (result.plan.budget.cachedPrefixTokens > 0) reused += 1;
      }
      previous = result.sequence;
    }
    expect(requests).toBeGreaterThan(3);
    expect(reused).toBeGreaterThan(requests / 2);
    // Tool pairs stay whole with the fresh share right after the core too.
    expect(afterCore).toBeGreaterThan(0);
  });
});

describe('cache_stable core over a long chat', () => {
  it('keeps a full core as sent, but starts it again once the history left out behind it passes CORE_MAX_GAP budgets', () => {
    const topics = ['garden', 'train', 'violin', 'recipe', 'hiking', 'chess', 'market', 'river'];
    const chat: Array<{ role: string; content: string }> = [];
    for (let turn = 0; turn < 400; turn++) {
      const topic = topics[turn % topics.length]!;
      chat.push({
        role: 'user',
        content: `Turn ${turn}: what about the ${topic} we talked about, and the plan for it?`,
      });
      chat.push({ role: 'assistant', content: `Answer ${turn}: the ${topic} is fine; we keep the plan as it was.` });
    }
    const maxTokens = 1000;
    const tokenCache = new LruTokenCache(50_000);
    const tokens = chat.map((message) => countMessageTokens(message, encoder));
    let previous: string[] | undefined;
    const starts = new Set<number>();
    let full = 0;
    let kept = 0;
    let restarts = 0;
    for (let end = 1; end <= chat.length; end += 2) {
      const messages: unknown[] = chat.slice(0, end);
      const result = planContext({
        messages,
        model: MODEL,
        options: { maxTokens, algorithm: 'cache_stable' },
        tokenCache,
        previousSequence: previous,
      });
      const order = checkPlan(messages, result, maxTokens);
      const history = historyPart(order.slice(0, -1));
      if (result.plan.tokensBefore > maxTokens && history.length > 0) {
        starts.add(history[0]!);
        // The history left out between the core and the newest messages stays bounded (a core seeded from the
        // question leaves out what it does not need further back: that is not history waiting behind it).
        let newest = history.length - 1;
        while (newest > 0 && history[newest - 1] === history[newest]! - 1) newest -= 1;
        let gap = 0;
        if (newest > 0)
          for (let index = history[newest - 1]! + 1; index < history[newest]!; index++) gap += tokens[index]!;
        expect(gap).toBeLessThanOrEqual(CORE_MAX_GAP * maxTokens);
      }
      if (result.plan.notes.some((note) => FULL_NOTE.test(note))) {
        full += 1;
        if (previous && result.sequence[0] === previous[0]) kept += 1;
      }
      if (result.plan.notes.some((note) => RESTART_NOTE.test(note))) restarts += 1;
      previous = result.sequence;
    }
    expect(full).toBeGreaterThan(5);
    expect(kept).toBe(full); // a full core still opens the prompt (it stays cached)…
    expect(restarts).toBeGreaterThan(1); // …but it does start again…
    expect(restarts).toBeLessThan(full); // …rarely
    expect(starts.size).toBeGreaterThan(1);
  });
});
