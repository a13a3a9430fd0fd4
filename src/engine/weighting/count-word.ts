const WORD_CHAR = /[\p{L}\p{N}_]/u;

/** True when the UTF-16 unit at `index` is part of a word (letters, digits, `_`); false outside the text. */
function isWordChar(text: string, index: number): boolean {
  if (index < 0 || index >= text.length) return false;
  const code = text.charCodeAt(index);
  if (code < 128) return (code >= 97 && code <= 122) || (code >= 48 && code <= 57) || code === 95 || (code >= 65 && code <= 90);
  return WORD_CHAR.test(text[index]!);
}

/**
 * Whole-word occurrences of a lower-case `word` in lower-cased `text`, found with indexOf
 * (native scanning, far faster than running the word regex over every message).
 */
export function countWord(text: string, word: string): number {
  let count = 0;
  let from = text.indexOf(word);
  while (from >= 0) {
    if (!isWordChar(text, from - 1) && !isWordChar(text, from + word.length)) count += 1;
    from = text.indexOf(word, from + word.length);
  }
  return count;
}
