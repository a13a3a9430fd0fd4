/**
 * The inline flag grammar. Pure. Unlike the Python library lethes it must not misread ordinary
 * text as flags (`!important note`, `!pip install`: an unknown key or a malformed item means no
 * block) nor mangle non-ASCII values (`!tag="café"` keeps its unicode).
 *
 * Block = text after a leading `!` up to the first unquoted whitespace; items are separated by
 * commas; key `[+-]?[A-Za-z_][\w.-]*` (case-insensitive, normalised to lower case); optional
 * `=value` where value is `"..."` (escapes `\"` and `\\` only, no unicode decoding), `'...'`, or
 * unquoted `[^,\s]+`. Anything that does not match exactly is not a flag block.
 */

/** What an item does: `set` = this turn (`!key`), `add` = persistent (`!+key`), `remove` = `!-key`. */
export type FlagOp = 'set' | 'add' | 'remove';

/** One item of a flag block, in the order it was written. */
export interface FlagItem {
  op: FlagOp;
  /** Lower-case key without the `+`/`-` sign. */
  key: string;
  /** The unquoted value; undefined when the item had no `=value`. */
  value?: string;
  /** The item as typed, for notices. */
  raw: string;
}

/** A recognised flag block. */
export interface FlagBlock {
  items: FlagItem[];
  /** The text after the block and its separating whitespace (blank lines and spaces removed). */
  rest: string;
  /** The block as typed, `!` included. */
  raw: string;
}

const KEY = /[+-]?[A-Za-z_][\w.-]*/y;
const UNQUOTED = /[^,\s]+/y;
const WHITESPACE = /\s/;

/** Read a value starting at `start`; undefined when it does not parse (unterminated quote, empty). */
function readValue(text: string, start: number): { value: string; end: number } | undefined {
  const quote = text[start];
  if (quote === '"') {
    let value = '';
    for (let index = start + 1; index < text.length; index++) {
      const char = text[index] as string;
      if (char === '"') return { value, end: index + 1 };
      const next = text[index + 1];
      if (char === '\\' && (next === '"' || next === '\\')) {
        value += next;
        index++;
      } else value += char;
    }
    return undefined;
  }
  if (quote === "'") {
    const close = text.indexOf("'", start + 1);
    return close < 0 ? undefined : { value: text.slice(start + 1, close), end: close + 1 };
  }
  UNQUOTED.lastIndex = start;
  const match = UNQUOTED.exec(text);
  return match ? { value: match[0], end: start + match[0].length } : undefined;
}

/** Drop the whitespace between the block and the text: whole blank lines, or spaces/tabs on the same line. */
function stripSeparator(rest: string): string {
  const blankLines = /^(?:[ \t\f\v]*\r?\n)+/.exec(rest);
  if (blankLines) return rest.slice(blankLines[0].length);
  return rest.replace(/^\s+/, '');
}

/**
 * Parse the flag block at the start of `text`. Returns undefined when `text` does not start with
 * a well-formed block, or when `isKnown` rejects any key (then the text is ordinary text).
 */
export function parseFlagBlock(text: string, isKnown?: (key: string) => boolean): FlagBlock | undefined {
  if (!text.startsWith('!')) return undefined;
  const items: FlagItem[] = [];
  let index = 1;
  for (;;) {
    const itemStart = index;
    KEY.lastIndex = index;
    const keyMatch = KEY.exec(text);
    if (!keyMatch) return undefined;
    const token = keyMatch[0];
    index += token.length;
    const sign = token[0];
    const op: FlagOp = sign === '+' ? 'add' : sign === '-' ? 'remove' : 'set';
    const key = (op === 'set' ? token : token.slice(1)).toLowerCase();
    let value: string | undefined;
    if (text[index] === '=') {
      const read = readValue(text, index + 1);
      if (!read) return undefined;
      value = read.value;
      index = read.end;
    }
    items.push(
      value === undefined
        ? { op, key, raw: text.slice(itemStart, index) }
        : { op, key, value, raw: text.slice(itemStart, index) },
    );
    const next = text[index];
    if (next === ',') {
      index++;
      continue;
    }
    if (next === undefined || WHITESPACE.test(next)) break;
    return undefined;
  }
  if (isKnown && !items.every((item) => isKnown(item.key))) return undefined;
  return { items, rest: stripSeparator(text.slice(index)), raw: text.slice(0, index) };
}
