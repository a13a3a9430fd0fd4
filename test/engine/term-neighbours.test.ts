import { describe, expect, it } from 'vitest';
import { analyzeTerm } from '../../src/domain/engine/weighting/analyze-term.js';
import { bm25Scores, postingsEnd, type TermMatrix, termMatrix } from '../../src/domain/engine/weighting/bm25-scores.js';
import { termKey } from '../../src/domain/engine/weighting/term-frequencies.js';
import {
  expandQuery,
  NEIGHBOUR_WEIGHT,
  NEIGHBOURS_PER_TERM,
} from '../../src/domain/engine/weighting/term-neighbours.js';

const key = (word: string): number => termKey(analyzeTerm(word));
const chatOf = (...words: string[]) => new Set(words.map(key));

describe('soft matching: close words through the shipped word-similarity table', () => {
  it('finds the words a chat uses for the same thing, weighted below the query word', () => {
    const chat = chatOf('karate', 'kickboxing', 'groceries');
    const { keys, weights } = expandQuery([key('martial')], (term) => chat.has(term));
    expect(keys).toContain(key('karate'));
    expect(keys).toContain(key('kickboxing'));
    expect(keys).not.toContain(key('groceries'));
    for (const weight of weights) {
      expect(weight).toBeGreaterThan(0);
      expect(weight).toBeLessThanOrEqual(NEIGHBOUR_WEIGHT);
    }
  });

  it('adds only words the chat uses, never the query words themselves, at most a few per query word', () => {
    const query = [key('bought'), key('purchase')];
    const chat = chatOf('bought', 'purchase', 'buy', 'buying', 'purchased', 'sold', 'sell', 'acquired', 'bought');
    const { keys } = expandQuery(query, (term) => chat.has(term));
    for (const term of keys) {
      expect(chat.has(term)).toBe(true);
      expect(query).not.toContain(term);
    }
    expect(keys.length).toBeLessThanOrEqual(NEIGHBOURS_PER_TERM * query.length);
    expect(expandQuery(query, () => false).keys).toEqual([]);
  });

  it('leaves unknown words (ids, numbers, other scripts) alone', () => {
    expect(expandQuery([key('x7f3k9q'), key('2023'), key('東京')], () => true).keys).toEqual([]);
  });

  it('a message with a close word scores above an unrelated one and below one with the word asked for', () => {
    const messages = [
      'John: I started karate classes last month',
      'John: I bought new groceries for the week',
      'John: I love martial arts movies',
    ];
    const scores = bm25Scores(messages, 'Which martial arts has John done?');
    expect(scores[0]).toBeGreaterThan(scores[1]!);
    expect(scores[2]).toBeGreaterThan(scores[0]!);
  });

  it('the indexed and the plain term matrices expand the same way', () => {
    const messages = ['Maria: kickboxing gives me energy', 'Maria: we painted the fence'];
    const cache = new Map();
    const indexed = termMatrix(messages, 'What martial arts does Maria do?', {
      keys: ['a', 'b'],
      cache: { get: (id: string) => cache.get(id), set: (id: string, value: unknown) => cache.set(id, value) },
    });
    const plain = termMatrix(messages, 'What martial arts does Maria do?');
    expect(indexed.width).toBe(plain.width);
    const occurrences = (matrix: TermMatrix) =>
      matrix.postings.map((list) => Array.from(list).slice(0, postingsEnd(list, matrix.count)));
    expect(occurrences(indexed)).toEqual(occurrences(plain));
    expect(occurrences(plain).some((list) => list.length > 0)).toBe(true);
    expect([...(indexed.weights ?? [])]).toEqual([...(plain.weights ?? [])]);
  });
});

describe('soft matching leaves names alone', () => {
  it('a question about one person does not reach another person through name similarity', () => {
    const scores = bm25Scores(
      ['Caroline: I went to a support group', 'Melanie: we went camping'],
      'Where did Melanie go?',
    );
    expect(scores[0]).toBe(0);
    expect(scores[1]).toBeGreaterThan(0);
  });
});

describe('compounds of adjacent question words', () => {
  it('"ice cream" in the question finds "icecream" in the chat, above a message with one of the two words', () => {
    const messages = [
      'Joanna: I love it when you make coconut milk icecream',
      'Joanna: I made a cream sauce yesterday',
      'Joanna: the ice cream shop was closed',
      'Joanna: we went hiking',
    ];
    const scores = bm25Scores(messages, 'What ice cream does Nate make?');
    expect(scores[0]).toBeGreaterThan(scores[1]!);
    expect(scores[2]).toBeGreaterThan(scores[1]!);
    expect(scores[3]).toBe(0);
  });

  it('the indexed and the plain paths add the same compounds', () => {
    const messages = ['a homemade icecream', 'a weekend away', 'nothing here'];
    const cache = new Map();
    const source = {
      keys: ['c1', 'c2', 'c3'],
      cache: { get: (id: string) => cache.get(id), set: (id: string, value: unknown) => cache.set(id, value) },
    };
    const query = 'Any ice cream this week end?';
    expect([...bm25Scores(messages, query, source)]).toEqual([...bm25Scores(messages, query)]);
    expect(bm25Scores(messages, query)[1]).toBeGreaterThan(0);
  });
});
