import { describe, expect, it } from 'vitest';
import { LruTermCache, planContext, type TermCache, type TermCounts } from '../../src/domain/engine/index.js';
import { bm25Scores } from '../../src/domain/engine/weighting/bm25-scores.js';
import { termCount, termFrequencies, termKey } from '../../src/domain/engine/weighting/term-frequencies.js';
import { assistant, chat, user } from './fixtures/conversations.js';

/** A cache that records its traffic. */
class CountingCache implements TermCache {
  readonly inner = new LruTermCache();
  hits = 0;
  misses = 0;
  get(key: string): TermCounts | undefined {
    const value = this.inner.get(key);
    if (value) this.hits += 1;
    else this.misses += 1;
    return value;
  }
  set(key: string, counts: TermCounts): void {
    this.inner.set(key, counts);
  }
}

describe('term tables (cached word counts)', () => {
  it.each([
    ['Bread, bread! BREAD? breadcrumbs sourbread bread_x', { bread: 3, breadcrumb: 1, sourbread: 1, bread_x: 1 }],
    ['café Café cafés un café', { café: 3, cafés: 1, un: 1 }],
    ['東京 is big; 東京都 is bigger', { 東京: 1, 東京都: 1, big: 1, bigger: 1, is: 0 }],
    ['painted paintings painting', { paint: 3, painted: 0 }],
    ['30 May 2026, 300 days, 30th', { 30: 1, may: 1, 2026: 1, day: 1, '30th': 1 }],
    ['emoji 😀 between words, 𝒳 letters', { emoji: 1, word: 1, letter: 1, between: 0 }],
    ['', { nothing: 0 }],
  ] as Array<[string, Record<string, number>]>)(
    'the table of %j counts indexed terms (stemmed, stop words out)',
    (text, expected) => {
      const table = termFrequencies(text);
      expect(Object.fromEntries(Object.keys(expected).map((term) => [term, termCount(table, termKey(term))]))).toEqual(
        expected,
      );
    },
  );

  it('a table of many distinct words still finds each one', () => {
    const text = Array.from({ length: 500 }, (_, index) => `w${index}`).join(' ');
    const table = termFrequencies(`${text} w7 w7`);
    expect(termCount(table, termKey('w7'))).toBe(3);
    expect(termCount(table, termKey('w499'))).toBe(1);
    expect(termCount(table, termKey('w500'))).toBe(0);
  });

  it('cached and scanned BM25 scores are equal, and a second run counts nothing again', () => {
    const documents = [
      'how do I bake bread',
      'use flour water yeast and bake bread',
      'sunny and warm',
      'Bread again, BREAD!',
    ];
    const keys = documents.map((_, index) => `k${index}`);
    const cache = new CountingCache();
    const scanned = Array.from(bm25Scores(documents, 'more on bread and yeast please'));
    expect(scanned[1]).toBeGreaterThan(scanned[0]!);
    expect(scanned[2]).toBe(0);
    expect(Array.from(bm25Scores(documents, 'more on bread and yeast please', { keys, cache }))).toEqual(scanned);
    expect(cache.misses).toBe(4);
    expect(Array.from(bm25Scores(documents, 'more on bread and yeast please', { keys, cache }))).toEqual(scanned);
    expect(cache.misses).toBe(4); // the chat's inverted index is reused: no table is counted or read again
  });

  it('a stale entry (same key, other text) is recounted', () => {
    const cache = new LruTermCache();
    bm25Scores(['bread', 'weather'], 'bread', { keys: ['a', 'b'], cache });
    expect(Array.from(bm25Scores(['sunny weather today', 'bread'], 'weather', { keys: ['a', 'b'], cache }))).toEqual(
      Array.from(bm25Scores(['sunny weather today', 'bread'], 'weather')),
    );
  });

  it('planContext: a term cache hit gives the same plan, and a warm turn only counts what it had not scored before', () => {
    const cache = new CountingCache();
    const history = chat(20, 30);
    const options = { maxTokens: 300 };
    const first = planContext({ messages: history, options, termCache: cache });
    const missesBefore = cache.misses;
    const again = planContext({ messages: history.map((message) => ({ ...message })), options, termCache: cache });
    expect(again.plan.entries).toEqual(first.plan.entries);
    expect(cache.misses).toBe(missesBefore);
    const next = [...history, assistant('an answer about gardens'), user('and what about the garden soil?')];
    planContext({ messages: next, options, termCache: cache });
    // The new assistant reply, and the previous question (it was the query, outside the corpus, last time).
    expect(cache.misses - missesBefore).toBe(2);
  });

  it('LruTermCache stays within its capacity in table slots, evicting the least recently used', () => {
    const cache = new LruTermCache(200);
    for (let index = 0; index < 50; index += 1) {
      cache.set(`k${index}`, termFrequencies(`word${index}`));
      cache.get('k0');
    }
    expect(cache.slotCount).toBeLessThanOrEqual(200);
    expect(cache.get('k49')).toBeDefined();
    expect(cache.get('k0')).toBeDefined();
    expect(cache.get('k1')).toBeUndefined();
  });

  it('a long message with few distinct words gets a small table', () => {
    expect(termFrequencies('same words repeated '.repeat(1000)).keys.length).toBe(8);
    expect(termCount(termFrequencies('same words repeated '.repeat(1000)), termKey('repeat'))).toBe(1000);
  });
});
