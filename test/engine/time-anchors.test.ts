import { describe, expect, it } from 'vitest';
import { planContext } from '../../src/domain/engine/index.js';
import { asksAboutTime, hasDateExpression } from '../../src/domain/engine/weighting/time-expressions.js';
import { TIME_ANCHOR_SHARE } from '../../src/domain/engine/weighting/time-anchors.js';
import { assistant, system, user, type TestMessage } from './fixtures/conversations.js';

describe('time questions', () => {
  it.each([
    ['When did I bake bread?', true],
    ['when exactly did I sign the lease', true],
    ['And when was the dog vaccinated?', true],
    ['OK. When did the parcel arrive?', true],
    ['What date did we come home?', true],
    ['On which day did I run 10k?', true],
    ['What time is the meeting?', true],
    ['How long ago did I move?', true],
    ['Since when do I have the cat?', true],
    ['What should I do when it rains?', false],
    ['What bread did I bake?', false],
    ['How many days will we spend there?', false],
    ['', false],
  ])('asksAboutTime(%j) = %s', (query, expected) => {
    expect(asksAboutTime(query)).toBe(expected);
  });
});

describe('date expressions', () => {
  it.each([
    ['Hi again! It is Monday, 3 March 2025 today.', true],
    ['deadline 2025-03-14', true],
    ['paid on 14/03/2025', true],
    ['see you March 3rd', true],
    ['on the 3rd of March', true],
    ['back in Sept. 12', true],
    ['since March 2025', true],
    ['every friday', true],
    ['I baked bread today', false],
    ['yesterday was long', false],
    ['I may come along', false],
    ['version 1.2.3 of the app', false],
  ])('hasDateExpression(%j) = %s', (text, expected) => {
    expect(hasDateExpression(text)).toBe(expected);
  });
});

const chatter = (from: number, pairs: number): TestMessage[] =>
  Array.from({ length: pairs }, (_, index) => [
    user(`tell me about topic${from + index} and gardening tips`),
    assistant(`topic${from + index}: water the plants early and mulch the beds`),
  ]).flat();

/** A dated session opener, chatter (so the opener is no neighbour of the event), an event, more chatter, then the question. */
function session(question: string): TestMessage[] {
  return [
    system('be brief'),
    user('Hello! It is Monday, 3 March 2025. Busy day.'),
    assistant('Welcome back! How can I help?'),
    ...chatter(0, 4),
    user('I baked sourdough bread for the very first time today.'),
    assistant('Congratulations on the first loaf!'),
    ...chatter(4, 6),
    user(question),
  ];
}

/** Indexes in `session()`: the opener and the event with its reply. */
const OPENER = 1;
const EVENT = 11;

describe('temporal anchors', () => {
  const budgetFor = (messages: TestMessage[]): number => {
    const entries = planContext({ messages }).plan.entries;
    // System, the question, the event with its reply, and the opener: everything else must go.
    return (
      [0, OPENER, EVENT, EVENT + 1, messages.length - 1].reduce((sum, index) => sum + entries[index]!.tokens, 0) + 3
    );
  };

  it.each([
    ['When did I bake sourdough bread?', true],
    ['What day did I bake sourdough bread?', true],
    ['What kind of sourdough bread did I bake?', false],
  ])('%j: dated opener kept = %s', (question, anchored) => {
    const messages = session(question);
    const result = planContext({ messages, options: { maxTokens: budgetFor(messages), recent: 1 } });
    const opener = result.plan.entries[OPENER]!;
    const event = result.plan.entries[EVENT]!;
    expect(event.disposition).toBe('keep');
    expect(opener.disposition).toBe(anchored ? 'keep' : 'drop');
    if (anchored) expect(opener.weight).toBeGreaterThanOrEqual(TIME_ANCHOR_SHARE * event.weight - 1e-9);
  });

  it('a message lends to the closest earlier dated message only', () => {
    const messages = [
      user('It was Friday, 1 March 2025.'),
      assistant('noted'),
      user('Now it is Tuesday, 5 March 2025.'),
      user('I baked sourdough bread today.'),
      assistant('nice'),
      user('When did I bake sourdough bread?'),
    ];
    const entries = planContext({ messages, options: { maxTokens: 1, recent: 0 } }).plan.entries;
    expect(entries[2]!.weight).toBeGreaterThanOrEqual(TIME_ANCHOR_SHARE * entries[3]!.weight - 1e-9);
    expect(entries[0]!.weight).toBeLessThan(entries[2]!.weight);
  });
});
