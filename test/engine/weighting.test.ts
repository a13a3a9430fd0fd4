import { describe, expect, it } from 'vitest';
import { parseConversation } from '../../src/domain/engine/conversation/parse-conversation.js';
import { defaultEngineOptions, planContext, type EngineOptions } from '../../src/domain/engine/index.js';
import { bm25Idf, bm25Scores } from '../../src/domain/engine/weighting/bm25-scores.js';
import { compositeWeighting } from '../../src/domain/engine/weighting/composite-weighting.js';
import { KEYWORD_FLOOR, keywordWeighting } from '../../src/domain/engine/weighting/keyword-weighting.js';
import { SMART_FLOOR, smartWeighting } from '../../src/domain/engine/weighting/smart-weighting.js';
import { staticWeighting } from '../../src/domain/engine/weighting/static-weighting.js';
import { queryTerms, MAX_QUERY_TERMS } from '../../src/domain/engine/weighting/query-terms.js';
import { assistant, system, toolCalls, toolResult, user, type TestMessage } from './fixtures/conversations.js';

/** Scores of a strategy over messages, the query being the last user message. */
function scores(
  strategy: typeof staticWeighting,
  messages: TestMessage[],
  options: Partial<EngineOptions> = {},
  externalScores?: Record<string, number>,
) {
  const conversation = parseConversation(messages);
  const query = conversation.nodes[conversation.lastUserIndex]!.text;
  return {
    conversation,
    values: Array.from(
      strategy.score({
        nodes: conversation.nodes,
        query,
        queryIndex: conversation.lastUserIndex,
        options: { ...defaultEngineOptions(), ...options },
        externalScores,
      }),
    ),
  };
}

const kitchen: TestMessage[] = [
  system('be brief'),
  user('how do I bake bread'),
  assistant('use flour water yeast and bake bread in an oven'),
  user('what about the weather today'),
  assistant('sunny and warm'),
  user('more on bread please'),
];

describe('BM25 idf', () => {
  it.each([1, 2, 4, 7, 50])('idf is positive for every df with N=%i', (documents) => {
    for (let df = 0; df <= documents; df += 1) expect(bm25Idf(documents, df)).toBeGreaterThan(0);
  });

  it('idf falls as a term gets more common', () => {
    expect(bm25Idf(10, 1)).toBeGreaterThan(bm25Idf(10, 5));
    expect(bm25Idf(10, 5)).toBeGreaterThan(bm25Idf(10, 10));
  });

  it('a term in 2 of 4 messages still scores (rank_bm25 gives idf 0 there)', () => {
    const raw = bm25Scores(['bread recipe', 'bread oven', 'weather', 'sunny'], 'bread');
    expect(raw[0]).toBeGreaterThan(0);
    expect(raw[1]).toBeGreaterThan(0);
    expect([raw[2], raw[3]]).toEqual([0, 0]);
  });

  it('more occurrences score higher, longer documents lower', () => {
    const raw = bm25Scores(['bread bread', 'bread', 'bread and a lot of other words here', 'x'], 'bread');
    expect(raw[0]).toBeGreaterThan(raw[1]!);
    expect(raw[1]).toBeGreaterThan(raw[2]!);
  });
});

describe('query terms and counting', () => {
  it.each([
    ['What is the weather in Paris?', ['weather', 'pari']],
    ['it IS it, is it?', []],
    ['Café café CAFÉ 東京', ['café', '東京']],
    ['When did Caroline go to the LGBTQ support groups?', ['carolin', 'go', 'lgbtq', 'support', 'group']],
    ["Which paintings didn't Melanie's kids like?", ['paint', 'melani', 'kid', 'like']],
    ['', []],
  ])('queryTerms(%j) = %j', (query, expected) => {
    expect(queryTerms(query)).toEqual(expected);
  });

  it('caps long queries at the longest terms', () => {
    const query = Array.from({ length: 100 }, (_, index) => 'x'.repeat(1 + (index % 30)) + index).join(' ');
    const terms = queryTerms(query);
    expect(terms.length).toBe(MAX_QUERY_TERMS);
    expect(Math.min(...terms.map((term) => term.length))).toBeGreaterThan(20);
  });

  it('questions and messages share one analyzer: inflections meet, function words do not count', () => {
    const raw = bm25Scores(['We adopted two kittens', 'the of and to was', 'weather'], 'Is she adopting a kitten?');
    expect(raw[0]).toBeGreaterThan(0);
    expect([raw[1], raw[2]]).toEqual([0, 0]);
  });
});

describe('weighting strategies', () => {
  it('static scores every message 1', () => {
    expect(scores(staticWeighting, kitchen).values.every((value) => value === 1)).toBe(true);
  });

  it('keyword: messages about the query score above unrelated ones, floored, best = 1', () => {
    const { values } = scores(keywordWeighting, kitchen);
    expect(values[0]).toBe(1);
    expect(values[2]).toBeGreaterThan(values[4]!);
    expect(Math.max(...values.slice(1))).toBe(1);
    expect(values[4]).toBeLessThan(values[2]!);
  });

  it('keyword: a message far from every match gets the floor; its neighbours borrow from it', () => {
    const filler = Array.from({ length: 30 }, (_, index) =>
      index % 2 ? assistant(`weather talk ${index}`) : user(`weather note ${index}`),
    );
    const { values } = scores(keywordWeighting, [
      user('the sourdough starter lives in the fridge'),
      assistant('noted'),
      ...filler,
      user('where does my sourdough starter live?'),
    ]);
    expect(values[0]).toBe(1);
    expect(values[1]).toBeGreaterThan(0.5);
    expect(values[20]).toBe(KEYWORD_FLOOR);
  });

  it('keyword: a query with no words gives everyone 1', () => {
    const { values } = scores(keywordWeighting, [user('bread'), assistant('yes'), user('?!')]);
    expect(values).toEqual([1, 1, 1]);
  });

  it('smart: an answer inherits pairCoherence × its question', () => {
    const messages = [
      user('bread question'),
      assistant('unrelated reply'),
      user('weather'),
      assistant('sunny'),
      user('bread'),
    ];
    expect(scores(smartWeighting, messages, { pairCoherence: 1 }).values[1]).toBe(
      scores(smartWeighting, messages, { pairCoherence: 1 }).values[0],
    );
    const { values } = scores(smartWeighting, messages, { pairCoherence: 0.95 });
    expect(values[1]).toBeGreaterThanOrEqual(0.95 * values[0]! - 1e-12);
    expect(values[1]).toBeLessThan(values[0]!);
    expect(values[3]).toBeGreaterThanOrEqual(SMART_FLOOR);
  });

  it.each([0.5, 0.2, 1])('smart: tool calls and results are multiplied by toolPenalty %s', (toolPenalty) => {
    const messages = [
      user('bread'),
      toolCalls(['c1', 'bread']),
      toolResult('c1', 'bread'),
      assistant('bread'),
      user('bread'),
    ];
    const plain = scores(smartWeighting, messages, { toolPenalty: 1 }).values;
    const penalised = scores(smartWeighting, messages, { toolPenalty }).values;
    expect(penalised[1]).toBeCloseTo(plain[1]! * toolPenalty, 10);
    expect(penalised[2]).toBeCloseTo(plain[2]! * toolPenalty, 10);
    expect(penalised[3]).toBe(plain[3]);
  });

  it('composite scores are renormalised to [0,1] with the best at 1', () => {
    const base = scores(compositeWeighting, kitchen);
    const chatValues = base.values.slice(1);
    expect(Math.max(...chatValues)).toBe(1);
    expect(chatValues.every((value) => value >= 0 && value <= 1)).toBe(true);
  });

  it('composite: external scores move a message up', () => {
    const { conversation } = scores(compositeWeighting, kitchen);
    const weatherId = conversation.nodes[4]!.id;
    const without = scores(compositeWeighting, kitchen).values;
    const withScores = scores(compositeWeighting, kitchen, { externalWeight: 0.9 }, { [weatherId]: 1 }).values;
    expect(withScores[4]).toBeGreaterThan(without[4]!);
  });

  it('with equal weights, greedy keeps the newest messages, not the oldest', () => {
    const messages = Array.from({ length: 10 }, (_, index) =>
      index % 2 ? assistant(`reply ${index}`) : user(`message ${index}`),
    );
    const result = planContext({
      messages,
      options: { algorithm: 'greedy', weighting: 'static', recent: 0, maxTokens: 40 },
    });
    const kept = result.plan.entries.filter((entry) => entry.disposition !== 'drop').map((entry) => entry.index);
    const dropped = result.plan.entries.filter((entry) => entry.disposition === 'drop').map((entry) => entry.index);
    expect(kept.length).toBeGreaterThan(1);
    expect(Math.min(...kept)).toBeGreaterThan(Math.max(...dropped));
  });

  it('!weight base weights multiply relevance', () => {
    const messages = [user('alpha'), assistant('beta'), user('gamma')];
    const ids = planContext({ messages }).plan.entries.map((entry) => entry.id);
    const result = planContext({
      messages,
      options: { weighting: 'static', maxTokens: 1, messageWeights: { [ids[1]!]: 0.25 } },
    });
    expect(result.plan.entries.map((entry) => entry.weight)).toEqual([1, 0.25, 1]);
  });
});
