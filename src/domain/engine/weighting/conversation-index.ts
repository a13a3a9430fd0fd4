import { TwoGenerationMap } from '../cache/two-generation-map.js';
import type { TermCache, TermCounts } from '../types.js';
import { termTable } from './term-frequencies.js';

/** An inverted index of one chat's documents, grown as the chat grows. */
export interface ConversationIndex {
  /** Document keys (message ids) in order; only the first `count` apply to the current request. */
  readonly keys: string[];
  /** Indexed terms per document. */
  readonly lengths: number[];
  /** Term table per document (time facts are remembered on them). */
  readonly tables: TermCounts[];
  /** Term key → flat pairs [document, count, document, count, …], documents ascending. */
  readonly postings: Map<number, number[]>;
  /** Documents of the current request (a prefix of `keys`). */
  count: number;
}

/** Chats indexed (by their first two documents): about one per active chat, at most twice this. */
const INDEX_GENERATION = 64;
const indexes = new TwoGenerationMap<string, ConversationIndex>(INDEX_GENERATION);

/** Adds one document's terms to the index. */
function add(index: ConversationIndex, key: string, text: string, cache: TermCache): void {
  const table = termTable(text, key, cache);
  const document = index.keys.length;
  index.keys.push(key);
  index.lengths.push(table.terms);
  index.tables.push(table);
  for (let slot = 0; slot < table.keys.length; slot += 1) {
    const count = table.counts[slot]!;
    if (count === 0) continue;
    const term = table.keys[slot]!;
    const list = index.postings.get(term);
    if (list === undefined) index.postings.set(term, [document, count]);
    else list.push(document, count);
  }
}

/**
 * Removes the documents from `count` on, newest first: a document's postings are the last pair
 * of each of its terms' lists (lists are ascending), so each goes with one `length -= 2`.
 * A term matrix taken earlier shares these lists; it is used within one plan only.
 */
function truncate(index: ConversationIndex, count: number): void {
  for (let document = index.keys.length - 1; document >= count; document -= 1) {
    const table = index.tables[document]!;
    for (let slot = 0; slot < table.keys.length; slot += 1) {
      if (table.counts[slot] === 0) continue;
      const list = index.postings.get(table.keys[slot]!)!;
      list.length -= 2;
      if (list.length === 0) index.postings.delete(table.keys[slot]!);
    }
  }
  index.keys.length = count;
  index.lengths.length = count;
  index.tables.length = count;
}

/**
 * The inverted index of a chat's documents (`documents[i]` under key `keys[i]`, a message
 * id), so scoring a query reads the postings of its few terms instead of probing every
 * message's table. Open WebUI resends the whole history each turn: the index of the same
 * chat (found by its first two keys) is reused when its keys are a prefix of these or these a
 * prefix of its keys, and only the new documents are added; when the lists part after a shared start (a
 * regenerated or edited reply), the documents after it are removed and the new ones added.
 */
export function conversationIndex(
  documents: readonly string[],
  keys: readonly string[],
  cache: TermCache,
): ConversationIndex {
  // By the first two message ids, like the hash memos: chats that open alike keep their own index.
  const first = keys.length === 0 ? undefined : `${keys[0]}\u0000${keys[1] ?? ''}`;
  let index = first === undefined ? undefined : indexes.get(first);
  let same = 0;
  if (index) {
    const limit = Math.min(index.keys.length, keys.length);
    // Same key and same text length (the guard term tables use against a stale entry).
    while (same < limit && index.keys[same] === keys[same] && index.tables[same]!.length === documents[same]!.length)
      same += 1;
    // Diverged inside both lists (a regenerated or edited reply): drop what follows the shared part.
    if (same < limit) truncate(index, same);
  }
  if (index === undefined) {
    index = { keys: [], lengths: [], tables: [], postings: new Map(), count: 0 };
    if (first !== undefined) indexes.set(first, index);
  }
  for (let document = index.keys.length; document < keys.length; document += 1)
    add(index, keys[document]!, documents[document]!, cache);
  index.count = keys.length;
  return index;
}
