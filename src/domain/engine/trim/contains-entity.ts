/** Whole-token matching of an exact string (the echo loop's entities in history lines). */

const WORD_CHAR = /[\p{L}\p{N}_]/u;

/** Whether the character at `index` of `text` is a word character (out of range: not). */
function wordAt(text: string, index: number): boolean {
  if (index < 0 || index >= text.length) return false;
  const code = text.charCodeAt(index);
  if (code < 128)
    return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
  return WORD_CHAR.test(text[index]!);
}

/**
 * Whether `text` contains `entity` as a whole token: not inside a longer word or number (`42` is not found in
 * `1425`, `Foo` not in `Foobar`), exact case.
 */
export function containsEntity(text: string, entity: string): boolean {
  const edgeStart = wordAt(entity, 0);
  const edgeEnd = wordAt(entity, entity.length - 1);
  for (let at = text.indexOf(entity); at >= 0; at = text.indexOf(entity, at + 1)) {
    if (edgeStart && wordAt(text, at - 1)) continue;
    if (edgeEnd && wordAt(text, at + entity.length)) continue;
    return true;
  }
  return false;
}
