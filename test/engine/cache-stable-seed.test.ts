import { describe, expect, it } from 'vitest';
import { planContext, validateMessageOrder } from '../../src/domain/engine/index.js';
import { restartedCore } from '../../src/domain/engine/selection/cache-stable-selection.js';
import type { SelectionUnit } from '../../src/domain/engine/selection/selection-algorithm.js';
import { everydayChat } from './helpers/everyday-chat.js';

/**
 * cache_stable starts its core (without a usable previous prompt, or once the history left out behind it passes
 * CORE_MAX_GAP rooms) from what the current question needs, in input order, not from the newest messages alone; the
 * recent messages follow it, so they join it from the next request.
 */
const MODEL = 'gpt-4o';
/** A chat of short exchanges about everyday things, with one fact about Ingrid early on. */
const chat = (exchanges: number) =>
  everydayChat(exchanges, {
    3: 'My sister Ingrid moved to Tromsø last spring; she teaches geology at the university there.',
  });

/** Input indexes of the sent messages, in send order. */
const order = (messages: readonly unknown[], sent: readonly unknown[]) =>
  sent.map((message) => messages.indexOf(message));

describe('cache_stable: a core that starts holds what the question needs', () => {
  it('without a previous prompt, the core holds the fact the question asks about, in order before the recent messages', () => {
    const history = chat(80);
    const question = { role: 'user', content: 'Which city did my sister Ingrid move to?' };
    const messages = [...history, question];
    const result = planContext({ messages, model: MODEL, options: { maxTokens: 800, algorithm: 'cache_stable' } });
    expect(result.plan.tokensAfter).toBeLessThanOrEqual(800);
    expect(validateMessageOrder(result.messages)).toEqual([]);
    const sent = order(messages, result.messages);
    // Ingrid's message (index 6) is in the chronological part of the prompt (the cached core), not recalled after it.
    const descent = sent.findIndex((index, at) => at > 0 && index < sent[at - 1]!);
    const chronological = descent < 0 ? sent : sent.slice(0, descent);
    expect(chronological).toContain(6);
    // (its neighbours borrow part of its score: the core opens near it, far before the newest history)
    expect(chronological[0]).toBeLessThanOrEqual(6);
    // The recent messages follow the core directly, in order (the default `recent` is 4: the last four messages, the
    // question among them, are sent whatever the budget), so the next request's core takes them in place.
    const recentStart = messages.length - 4;
    const firstRecent = chronological.indexOf(recentStart);
    expect(firstRecent).toBeGreaterThan(0);
    expect(chronological.slice(firstRecent)).toEqual([recentStart, recentStart + 1, recentStart + 2]);
    expect(chronological.slice(0, firstRecent).every((index) => index < recentStart)).toBe(true);
    // The next request (one more exchange) opens with the same core, and the fact is still sent.
    const next = [...history, { role: 'user', content: 'Thanks!' }, { role: 'assistant', content: 'Any time.' }];
    const followUp = { role: 'user', content: 'And what does Ingrid teach there?' };
    const second = planContext({
      messages: [...next, followUp],
      model: MODEL,
      options: { maxTokens: 800, algorithm: 'cache_stable' },
      previousSequence: result.sequence.slice(0, -1),
    });
    expect(second.messages[0]).toBe(messages[chronological[0]!]);
    expect(second.messages).toContain(messages[6]);
    expect(second.plan.notes.some((note) => note.startsWith('cache_stable: reused'))).toBe(true);
  });

  it('with equal weights (static weighting) it is the newest messages, as before any question is scored', () => {
    const history = chat(80);
    const messages = [...history, { role: 'user', content: 'Which city did my sister Ingrid move to?' }];
    const result = planContext({
      messages,
      model: MODEL,
      options: { maxTokens: 800, algorithm: 'cache_stable', weighting: 'static' },
    });
    const sent = order(messages, result.messages);
    expect(sent).not.toContain(6);
    // One contiguous block of the newest history, up to the question.
    for (let at = 1; at < sent.length; at++) expect(sent[at]).toBe(sent[at - 1]! + 1);
  });
});

describe('restartedCore', () => {
  const unit = (position: number, role: 'user' | 'assistant'): SelectionUnit => ({
    position,
    members: [position],
    role,
    tokens: 10,
    weight: 1,
    mandatory: false,
    excluded: false,
  });
  const positions = (units: readonly SelectionUnit[]) => units.map((item) => item.position);

  it('opens with the longest lead of the old core that the new one keeps, then the new units after it', () => {
    const old = [unit(1, 'user'), unit(2, 'assistant'), unit(5, 'user'), unit(6, 'assistant')];
    expect(positions(restartedCore(old, [unit(1, 'user'), unit(2, 'assistant'), unit(9, 'user')]))).toEqual([1, 2, 9]);
    // The lead stops at the first old unit the new core leaves out; new units older than the lead's end are dropped.
    expect(positions(restartedCore(old, [unit(1, 'user'), unit(5, 'user'), unit(9, 'user')]))).toEqual([1, 5, 9]);
    expect(positions(restartedCore(old, [unit(0, 'user'), unit(2, 'assistant'), unit(9, 'user')]))).toEqual([0, 2, 9]);
  });

  it('is the new core when nothing of the old lead is in it, or the old core does not open with a user unit', () => {
    const seeded = [unit(3, 'user'), unit(4, 'assistant')];
    expect(positions(restartedCore([unit(1, 'user')], seeded))).toEqual([3, 4]);
    expect(positions(restartedCore([unit(4, 'assistant'), unit(3, 'user')], seeded))).toEqual([3, 4]);
  });
});
