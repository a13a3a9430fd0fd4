import { describe, expect, it } from 'vitest';
import { LruTermCache } from '../../src/domain/engine/index.js';
import { bm25Scores } from '../../src/domain/engine/weighting/bm25-scores.js';
import { conversationIndex } from '../../src/domain/engine/weighting/conversation-index.js';

const WORDS = [
  'bread',
  'oven',
  'garden',
  'soil',
  'painting',
  'painted',
  'camping',
  'lake',
  'the',
  'and',
  'kids',
  'museum',
  '2023',
  'yesterday',
];

/** A tiny seeded generator (xorshift), so a failure can be replayed. */
function rng(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4294967296;
  };
}

describe("a chat's inverted index", () => {
  it('scores exactly as counting every message afresh, through appends, regenerated replies, edits and other chats', () => {
    const random = rng(7);
    const sentence = () =>
      Array.from({ length: 1 + Math.floor(random() * 8) }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ');
    const cache = new LruTermCache();
    for (let chat = 0; chat < 5; chat += 1) {
      let documents: string[] = [`chat ${chat} opener ${sentence()}`];
      for (let step = 0; step < 40; step += 1) {
        const roll = random();
        if (roll < 0.6)
          documents = [...documents, sentence(), sentence()]; // a new turn
        else if (roll < 0.75 && documents.length > 2)
          documents = documents.slice(0, -1); // a regenerated reply
        else if (documents.length > 1) {
          const at = 1 + Math.floor(random() * (documents.length - 1));
          documents = documents.map((text, index) => (index === at ? `${text} edited ${sentence()}` : text)); // an edit in the middle
        }
        // Keys stand in for content-derived message ids: the same text has the same key.
        const keys = documents.map((text) => `id:${text}`);
        const query = sentence();
        expect(Array.from(bm25Scores(documents, query, { keys, cache }))).toEqual(
          Array.from(bm25Scores(documents, query)),
        );
      }
    }
  });

  it('a resent chat with one new turn adds only the new documents; a shorter one reuses the index; an edit truncates it', () => {
    const cache = new LruTermCache();
    const documents = ['opener about bread', 'bake it in the oven', 'what about the garden', 'soil first'];
    const keys = documents.map((text) => `k:${text}`);
    const first = conversationIndex(documents, keys, cache);
    expect(first.count).toBe(4);
    const grown = conversationIndex([...documents, 'and the lake'], [...keys, 'k:and the lake'], cache);
    expect(grown).toBe(first);
    expect(grown.count).toBe(5);
    expect(grown.keys).toHaveLength(5);
    const shorter = conversationIndex(documents.slice(0, 3), keys.slice(0, 3), cache);
    expect(shorter).toBe(first);
    expect(shorter.count).toBe(3);
    // An edit after the first two messages: what follows the shared start is removed, the new one added, in place.
    const editedDocuments = [documents[0]!, documents[1]!, 'what about the lake'];
    const editedKeys = [keys[0]!, keys[1]!, 'k:what about the lake'];
    const edited = conversationIndex(editedDocuments, editedKeys, cache);
    expect(edited).toBe(first);
    expect(edited.keys).toEqual(editedKeys);
    const fresh = conversationIndex(editedDocuments, ['other:0', 'other:1', 'other:2'], new LruTermCache());
    expect(new Map([...edited.postings].map(([term, list]) => [term, [...list]]))).toEqual(
      new Map([...fresh.postings].map(([term, list]) => [term, [...list]])),
    );
    expect(edited.lengths).toEqual(fresh.lengths);
  });

  it('a shorter resend scores like a fresh count: close terms only later documents use take no soft-matching slot', () => {
    const cache = new LruTermCache();
    // "guitar" softly matches its closest terms the chat uses (at most three): here the banjo, until
    // later turns bring the bass, the drums and the harmonica, which are closer.
    const early = ['I keep an old banjo by the window', 'the bus was late again', 'we read on the platform'];
    const later = ['my cousin lent me her bass', 'the neighbour brought drums', 'and a harmonica'];
    const all = [...early, ...later];
    const keyOf = (text: string) => `k:${text}`;
    const query = 'which guitar do I play';
    expect(Array.from(bm25Scores(all, query, { keys: all.map(keyOf), cache }))).toEqual(
      Array.from(bm25Scores(all, query)),
    );
    // The index now holds all six documents; the earlier request must not see the later ones' terms.
    const resent = Array.from(bm25Scores(early, query, { keys: early.map(keyOf), cache }));
    expect(resent).toEqual(Array.from(bm25Scores(early, query)));
    expect(resent[0]).toBeGreaterThan(0);
  });
});
