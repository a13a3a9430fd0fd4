import { STOPWORDS } from '../weighting/stopwords.js';

/**
 * The entities of a reply (the echo loop's input): what a model repeats from what it read is specific (a package
 * name, a version, an error code, a path, a quoted string), so finding these strings in the history finds the
 * messages and lines the reply used.
 */

/** At most this many entities of one reply, in order of first appearance (a long reply's first ones). */
export const MAX_ENTITIES = 48;
/** Entities are at most this many characters (a longer quoted string is cut to its start). */
export const MAX_ENTITY_CHARS = 80;
const MIN_ENTITY_CHARS = 3;

/** `"…"`, `“…”`, `` `…` ``: a quoted string on one line. */
const QUOTED = /"([^"\n]{3,200})"|“([^”\n]{3,200})”|`([^`\n]{3,200})`/g;
/**
 * A word with a digit or inner punctuation (ids, hashes, versions, dates, times, paths, kebab/snake/dotted names:
 * `1.2.3-1ubuntu2`, `E4217`, `2026-11-20`, `/var/log/dpkg.log`, `ca-certificates`), or a capitalised word (names).
 * Trailing punctuation is stripped after matching.
 */
const WORD = /[\p{L}\p{N}_~./][\p{L}\p{N}_~./:+\-@#]*/gu;
const HAS_DIGIT = /\p{N}/u;
const INNER_MARK = /[\p{L}\p{N}][_./:+\-@#][\p{L}\p{N}]/u;
const CAPITALISED = /^\p{Lu}/u;
const TRAILING = /[.:+\-@#/~]+$/u;

/** Whether `word` alone names something worth finding again (not a plain lower-case word or a one-digit number). */
function specific(word: string): boolean {
  if (word.length < 2) return false;
  if (HAS_DIGIT.test(word)) return word.length >= 2 && !/^\p{N}$/u.test(word);
  if (word.length < MIN_ENTITY_CHARS) return false;
  if (INNER_MARK.test(word) || word.startsWith('/')) return true;
  return CAPITALISED.test(word) && !STOPWORDS.has(word.toLowerCase());
}

/**
 * The reply's entities, each once, in order of first appearance, at most MAX_ENTITIES: quoted strings, then
 * words with a digit or inner punctuation (ids, versions, numbers of two or more digits, dates, paths, dotted or
 * hyphenated names) and capitalised words that are not stop words (names). Case is kept: matching is exact.
 */
export function extractEntities(reply: string): string[] {
  const found = new Set<string>();
  const add = (text: string) => {
    const entity = text.trim().slice(0, MAX_ENTITY_CHARS);
    if (entity.length >= 2 && found.size < MAX_ENTITIES) found.add(entity);
  };
  for (const match of reply.matchAll(QUOTED)) {
    const text = match[1] ?? match[2] ?? match[3] ?? '';
    if (text.trim().length >= MIN_ENTITY_CHARS) add(text);
  }
  for (const match of reply.matchAll(WORD)) {
    const word = match[0].replace(TRAILING, '');
    if (specific(word)) add(word);
    if (found.size >= MAX_ENTITIES) break;
  }
  return [...found];
}
