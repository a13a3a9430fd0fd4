import { describe, expect, it } from 'vitest';
import { planContext } from '../../src/domain/engine/index.js';
import { analyzeTerm } from '../../src/domain/engine/weighting/analyze-term.js';
import { bm25Scores, termMatrix } from '../../src/domain/engine/weighting/bm25-scores.js';
import { chatRelevance } from '../../src/domain/engine/weighting/keyword-relevance.js';
import {
  NEIGHBOUR_DECAY,
  NEIGHBOUR_SHARE,
  smoothNeighbours,
} from '../../src/domain/engine/weighting/neighbour-smoothing.js';
import { passageScores } from '../../src/domain/engine/weighting/passage-scores.js';
import { STOPWORDS } from '../../src/domain/engine/weighting/stopwords.js';
import { hasTimeReference } from '../../src/domain/engine/weighting/time-expressions.js';
import { assistant, user } from './fixtures/conversations.js';

describe('term analysis: stop words and Porter2 stems', () => {
  it.each([
    ['painting', 'paint'],
    ['paintings', 'paint'],
    ['adoption', 'adopt'],
    ['adopting', 'adopt'],
    ['counselling', 'counsel'],
    ['skies', 'sky'],
    ['caroline', 'carolin'],
    ['the', ''],
    ['didn', ''],
    ['2023', '2023'],
    ['東京', '東京'],
    ['café', 'café'],
    ['api_key', 'api_key'],
    ['go', 'go'],
  ])('%j → %j', (word, term) => {
    expect(analyzeTerm(word)).toBe(term);
  });

  it('every stop word is left out and none is stemmed into a content word', () => {
    for (const word of STOPWORDS) expect(analyzeTerm(word)).toBe('');
  });

  it('a question matches the inflections of its words and ignores shared function words', () => {
    const raw = bm25Scores(
      ['Melanie: we painted the sunset together', 'the of and it was so', 'Caroline: I went to a support group'],
      'What did Melanie paint?',
    );
    expect(raw[0]).toBeGreaterThan(0);
    expect(raw[1]).toBe(0);
    expect(raw[2]).toBe(0);
  });
});

describe('neighbour smoothing', () => {
  it('lends a decaying share of a score to the messages around it, within the window', () => {
    const smoothed = smoothNeighbours(
      Float64Array.from([0, 0, 0, 0, 1, 0, 0, 0, 0]),
      3,
      NEIGHBOUR_SHARE,
      NEIGHBOUR_DECAY,
      0,
    );
    expect(smoothed[4]).toBe(1);
    expect(smoothed[3]).toBeCloseTo(NEIGHBOUR_SHARE);
    expect(smoothed[5]).toBeCloseTo(NEIGHBOUR_SHARE);
    expect(smoothed[2]).toBeCloseTo(NEIGHBOUR_SHARE * NEIGHBOUR_DECAY);
    expect(smoothed[1]).toBeCloseTo(NEIGHBOUR_SHARE * NEIGHBOUR_DECAY ** 2);
    expect(smoothed[0]).toBe(0);
    expect(smoothed[8]).toBe(0);
  });

  it('takes the best share, never the sum, and never lowers a score', () => {
    const smoothed = smoothNeighbours(Float64Array.from([1, 0, 1, 0.95]), 1, 0.5, 1, 0);
    expect(Array.from(smoothed)).toEqual([1, 0.5, 1, 0.95]);
  });

  it('adds the mean score of the surrounding region, so a message amid a topic beats an isolated one', () => {
    const scores = new Float64Array(60);
    scores[10] = 1;
    scores[40] = 1;
    scores[44] = 1;
    scores[48] = 1;
    const smoothed = smoothNeighbours(scores, 0, 0, 1, 10);
    expect(smoothed[44]).toBeGreaterThan(smoothed[10]!);
    expect(smoothed[44]! - 1).toBeCloseTo(3 / 21);
    expect(smoothed[25]).toBe(0);
  });
});

describe('passage scores', () => {
  it('a short exchange that holds all the question words scores for each of its messages', () => {
    const documents = [
      'Melanie: guess where we went',
      'Caroline: where?',
      'Melanie: camping at the lake',
      'Caroline: how nice',
      'Melanie: unrelated weather talk',
      'x',
      'y',
      'z',
      'Melanie: nothing',
      'Caroline: lake view',
    ];
    const passages = passageScores(termMatrix(documents, 'Where did Melanie go camping at the lake?'));
    // The best passages contain the camping message; a message four or more away only gets weaker ones.
    expect(passages[0]).toBeGreaterThan(passages[6]!);
    expect(passages[2]).toBe(Math.max(...passages));
  });

  it('no query terms, no scores', () => {
    expect(Array.from(passageScores(termMatrix(['a', 'b'], 'the of and')))).toEqual([0, 0]);
  });
});

describe('time questions', () => {
  it.each([
    ['I went to a support group yesterday', true],
    ['We moved here last May', true],
    ['Last week I started painting', true],
    ['It happened 3 years ago', true],
    ['On 7 May 2023 we met', true],
    ['This weekend we hiked', true],
    ['I like painting', false],
  ])('hasTimeReference(%j) = %s', (text, expected) => {
    expect(hasTimeReference(text)).toBe(expected);
  });

  it('on "when" questions a message telling the event with a time reference outranks one without', () => {
    const documents = ['I baked sourdough bread yesterday', 'I love sourdough bread'];
    const when = chatRelevance(documents, 'When did I bake sourdough bread?', undefined, undefined).scores;
    const what = chatRelevance(documents, 'What sourdough bread did I bake?', undefined, undefined).scores;
    expect(when[0]! / when[1]!).toBeGreaterThan(what[0]! / what[1]!);
  });
});

describe('repairs give back the room they free', () => {
  it('a budget left unused by the first-user rule is filled with later messages', () => {
    const long = 'an unrelated paragraph about the weather and nothing else '.repeat(4);
    const messages = [
      user('tell me about the weather'),
      assistant(`the answer about gardening soil is loam: ${long}`),
      ...Array.from({ length: 8 }, (_, index) =>
        index % 2 ? assistant(`weather reply ${index}`) : user(`weather note ${index}`),
      ),
      user('what about gardening soil?'),
    ];
    const full = planContext({ messages }).plan;
    const budget = Math.floor(full.tokensBefore * 0.6);
    const plan = planContext({ messages, options: { maxTokens: budget, recent: 1 } }).plan;
    expect(plan.tokensAfter).toBeLessThanOrEqual(budget);
    const unused = budget - plan.tokensAfter;
    const smallestDropped = Math.min(
      ...plan.entries.filter((entry) => entry.disposition === 'drop' && entry.index > 1).map((entry) => entry.tokens),
    );
    expect(unused).toBeLessThan(smallestDropped);
  });
});
