import type { AlgorithmName } from '../../src/domain/engine/index.js';
import { describe, expect, it } from 'vitest';
import { planContext, validateMessageOrder, type PlanResult } from '../../src/domain/engine/index.js';
import { repairUnits } from '../../src/domain/engine/plan/repair-units.js';
import { PREFIX_RECALL_SHARE } from '../../src/domain/engine/selection/prefix-cache-selection.js';
import { assistant, chat, resend, system, user, type TestMessage } from './fixtures/conversations.js';

const history: TestMessage[] = [
  system('be brief'),
  user('my gym locker code is 4821'),
  assistant('noted, your locker code'),
  ...chat(30, 20),
  user('zzz qqq'),
];
const options = { algorithm: 'prefix_cache' as const, maxTokens: 600 };

/** Ids of the messages sent, in send order. */
const sentIds = (result: PlanResult) => result.sequence;

describe('prefix_cache recall behind the prefix', () => {
  const first = planContext({ messages: history, options });
  const lockerId = first.plan.entries[1]!.id;
  const next = resend([...history, assistant('no idea what zzz means'), user('what is my gym locker code?')]);
  const second = planContext({ messages: next, options, previousSequence: first.sequence });

  it('the first request trims the old locker message away and, matching nothing, recalls nothing', () => {
    expect(first.plan.entries[1]!.disposition).toBe('drop');
    expect(first.plan.notes.some((note) => note.includes('after the cached prefix'))).toBe(false);
  });

  it('keeps the previous prefix and adds the relevant old message after it, before the question', () => {
    expect(second.plan.prefixReused).toBe(first.sequence.length);
    const sequence = sentIds(second);
    const ids = second.plan.entries.map((entry) => entry.id);
    expect(sequence.slice(0, first.sequence.length)).toEqual(first.sequence);
    expect(sequence[first.sequence.length]).toBe(ids[next.length - 2]);
    expect(sequence.slice(first.sequence.length + 1, -1)).toContain(lockerId);
    expect(sequence[sequence.length - 1]).toBe(ids[next.length - 1]);
    expect(second.plan.budget.cachedPrefixTokens).toBe(first.plan.tokensAfter - 3);
    expect(validateMessageOrder(second.messages)).toEqual([]);
    expect(second.plan.notes.some((note) => note.includes('after the cached prefix'))).toBe(true);
  });

  it('the recalled block stays within PREFIX_RECALL_SHARE of the budget, and the total within the budget', () => {
    const recalledIds = new Set(second.sequence.slice(first.sequence.length + 1, -1));
    const recalled = second.plan.entries.filter((entry) => recalledIds.has(entry.id));
    expect(recalled.reduce((sum, entry) => sum + entry.tokens, 0)).toBeLessThanOrEqual(
      PREFIX_RECALL_SHARE * options.maxTokens,
    );
    expect(second.plan.tokensAfter).toBeLessThanOrEqual(options.maxTokens);
  });

  it('on the turn after, the recalled message is chosen afresh: the cached part is still the chronological history', () => {
    const third = planContext({
      messages: resend([...next, assistant('it is 4821'), user('tell me about topic29 please')]),
      options,
      previousSequence: second.sequence,
    });
    expect(third.plan.prefixReused).toBeGreaterThanOrEqual(first.sequence.length);
    expect(third.plan.budget.cachedPrefixTokens).toBeGreaterThan(0.5 * second.plan.tokensAfter);
  });

  it.each([
    ['static weighting (no relevance)', { weighting: 'static' as const }],
    ['a query that matches only kept messages', {}],
  ] as Array<[string, { weighting?: 'static' }]>)(
    '%s: nothing is recalled and the order is chronological',
    (_name, extra) => {
      const messages = resend([
        ...history,
        assistant('ok'),
        user(extra.weighting ? 'what is my gym locker code?' : 'zzz qqq again'),
      ]);
      expect(
        planContext({
          messages,
          options: { ...options, ...extra },
          previousSequence: first.sequence,
        }).plan.notes.join(),
      ).not.toContain('after the cached prefix');
      const result = planContext({ messages, options: { ...options, ...extra }, previousSequence: first.sequence });
      const indexes = result.messages.map((message) => messages.indexOf(message as TestMessage));
      expect(indexes).toEqual([...indexes].sort((a, b) => a - b));
      expect(result.plan.entries[1]!.disposition).toBe('drop');
    },
  );
});

describe('prefix_cache repairs', () => {
  it.each([400, 600, 900, 1500])(
    'with summaries (budget %i), the kept history stays one block ending at the current turn; recalled messages go first',
    (maxTokens) => {
      const messages = [system('be brief'), ...chat(60, 20), user('what was question 4 and answer 9 and question 12')];
      const result = planContext({ messages, options: { algorithm: 'prefix_cache', maxTokens, summarize: true } });
      const order = result.messages
        .map((message) => messages.indexOf(message as TestMessage))
        .filter((index) => index > 0);
      const descent = order.findIndex((index, position) => position > 0 && index < order[position - 1]!);
      const history = descent < 0 ? order : [...order.slice(0, descent), order[order.length - 1]!];
      expect(history).toEqual(Array.from({ length: history.length }, (_, offset) => history[0]! + offset));
      expect(result.plan.tokensAfter).toBeLessThanOrEqual(maxTokens);
    },
  );
});

describe('repairUnits', () => {
  it.each([
    ['prefix_cache', [0, 1, 0.1], [1, 0, 1]],
    ['cache_stable', [0, 1, 0.1], [1, 0, 1]],
    ['recency', [0.3, 1, 0.1], [0.3, 1, 0.1]],
  ] as Array<[AlgorithmName, number[], number[]]>)(
    '%s: repair weights %j -> %j (recalled unit 1 goes first; history by age)',
    (algorithm, weights, expected) => {
      const units = weights.map((weight, position) => ({
        position,
        members: [position],
        role: 'user',
        tokens: 5,
        weight,
        mandatory: false,
        excluded: false,
      }));
      expect(
        repairUnits(units, algorithm, { kept: [true, true, true], notes: [], recalled: [1] }).map(
          (unit) => unit.weight,
        ),
      ).toEqual(expected);
    },
  );
});
