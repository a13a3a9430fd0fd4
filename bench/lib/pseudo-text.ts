const SYLLABLES =
  'ka lo mi ne ru sa ti vo we xu ya ze bra cor dun fel gir hap jov kel mur nis pol quen rast sul tev und vor'.split(
    ' ',
  );

/**
 * `length` characters of pseudo-words with a full stop every dozen words or so (a fixed seed; hundreds of
 * thousands of distinct words, like a pasted document, so nothing repeats much).
 */
export function pseudoText(length: number): string {
  let seed = 7;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed;
  };
  const parts: string[] = [];
  let size = 0;
  while (size < length) {
    let word = '';
    for (let count = 1 + (next() % 4); count > 0; count--) word += SYLLABLES[next() % SYLLABLES.length];
    parts.push(next() % 12 === 0 ? `${word}.` : word);
    size += word.length + 1;
  }
  return parts.join(' ').slice(0, length);
}
