/** Longest reason phrase sent (characters, all ASCII); a longer message is cut and ends with `...`. */
export const REASON_PHRASE_MAX = 256;

/** Characters without an ASCII decomposition, spelled in ASCII. */
const SPELLED: Record<string, string> = {
  '\u2026': '...',
  '\u2018': "'",
  '\u2019': "'",
  '\u201a': "'",
  '\u201c': '"',
  '\u201d': '"',
  '\u201e': '"',
  '\u2013': '-',
  '\u2014': '-',
  '\u2212': '-',
  '\u2192': '->',
  '\u2190': '<-',
  '\u00b7': '-',
  '\u2022': '-',
  '\u20ac': 'EUR',
  '\u00a3': 'GBP',
  '\u00d7': 'x',
  '\u00a0': ' ',
};

/**
 * An error's message as an HTTP reason phrase (the text after the status code on the status line), which is what
 * a client that reads no body shows: Open WebUI's Pipelines client calls `raise_for_status()` before it reads the
 * JSON, and shows the reason. ASCII only (accents dropped, typographic punctuation spelled in ASCII, anything else
 * `?`), one line (line breaks, tabs and control characters become spaces, runs of spaces one), at most
 * REASON_PHRASE_MAX characters. Undefined when nothing printable is left (the status's standard phrase stays).
 *
 * @example
 * reasonPhrase('Your daily budget of $0.10 is used up…\nit resets at midnight');
 * // 'Your daily budget of $0.10 is used up... it resets at midnight'
 */
export function reasonPhrase(message: string): string | undefined {
  const ascii = message
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]/gu, (char) => SPELLED[char] ?? (/[\s\p{Cc}]/u.test(char) ? ' ' : '?'))
    .replace(/ {2,}/g, ' ')
    .trim();
  if (ascii === '') return undefined;
  return ascii.length <= REASON_PHRASE_MAX ? ascii : `${ascii.slice(0, REASON_PHRASE_MAX - 3).trimEnd()}...`;
}
