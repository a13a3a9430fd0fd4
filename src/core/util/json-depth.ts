const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const COMMA = 0x2c;
const SPACE = 0x20;
const TAB = 0x09;
const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/** Which limit a JSON text goes past: its nesting (`depth`) or its count of keys and array elements (`entries`). */
export type JsonLimit = 'depth' | 'entries';

/**
 * True when the JSON text nests arrays/objects deeper than `maxDepth`, found by one iterative
 * scan of the raw text (no recursion, no parsing), so a hostile body is rejected before
 * `JSON.parse` and before any recursive code (zod, JSON.stringify) can overflow the stack.
 * Brackets inside strings do not count; string contents are skipped with a native `indexOf`,
 * so a base64 image costs almost nothing. UTF-8 bytes are scanned directly (multi-byte
 * sequences never contain ASCII bytes); other encodings are passed as a decoded string.
 * Malformed JSON is not reported here: `JSON.parse` does that.
 *
 * @example
 * jsonDepthExceeds('{"a": [[1]]}', 2); // true: depth 3
 */
export function jsonDepthExceeds(text: Uint8Array | string, maxDepth: number): boolean {
  return jsonLimitExceeded(text, { maxDepth, maxEntries: Number.POSITIVE_INFINITY }) === 'depth';
}

/**
 * The first limit the JSON text goes past, in the same one scan as `jsonDepthExceeds`: nesting deeper than
 * `maxDepth`, or more than `maxEntries` entries in all (an object's keys and an array's elements, at every level:
 * `{"a": [1, 2], "b": {}}` has 4). Found before `JSON.parse`, so a body of a million small values is refused at
 * the cost of reading its bytes once (about 40 ms for 26 MB) instead of being parsed, validated and copied
 * (seconds, every other request waiting). Undefined when the text is within both.
 *
 * @example
 * jsonLimitExceeded('[1, 2, 3]', { maxDepth: 10, maxEntries: 2 }); // 'entries'
 */
export function jsonLimitExceeded(
  text: Uint8Array | string,
  limits: { maxDepth: number; maxEntries: number },
): JsonLimit | undefined {
  if (typeof text === 'string') return scanString(text, limits.maxDepth, limits.maxEntries);
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text.buffer, text.byteOffset, text.byteLength);
  return scanBytes(bytes, limits.maxDepth, limits.maxEntries);
}

const isWhitespace = (code: number) => code === SPACE || code === LINE_FEED || code === CARRIAGE_RETURN || code === TAB;

// The same loop twice, so each stays monomorphic (Buffer indexing vs charCodeAt). Entries: every comma outside a
// string separates one more, and a container whose first non-blank character does not close it holds a first one.
function scanBytes(bytes: Buffer, maxDepth: number, maxEntries: number): JsonLimit | undefined {
  let depth = 0;
  let entries = 0;
  let opened = false;
  for (let index = 0; index < bytes.length; index++) {
    const code = bytes[index]!;
    if (opened && !isWhitespace(code)) {
      opened = false;
      if (code !== CLOSE_ARRAY && code !== CLOSE_OBJECT && ++entries > maxEntries) return 'entries';
    }
    if (code === QUOTE) {
      // Jump to the closing quote: one not preceded by an odd run of backslashes.
      for (;;) {
        index = bytes.indexOf(QUOTE, index + 1);
        if (index < 0) return undefined;
        let slashes = 0;
        while (bytes[index - 1 - slashes] === BACKSLASH) slashes++;
        if (slashes % 2 === 0) break;
      }
    } else if (code === COMMA) {
      if (++entries > maxEntries) return 'entries';
    } else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
      if (++depth > maxDepth) return 'depth';
      opened = true;
    } else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) {
      depth--;
    }
  }
  return undefined;
}

function scanString(text: string, maxDepth: number, maxEntries: number): JsonLimit | undefined {
  let depth = 0;
  let entries = 0;
  let opened = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (opened && !isWhitespace(code)) {
      opened = false;
      if (code !== CLOSE_ARRAY && code !== CLOSE_OBJECT && ++entries > maxEntries) return 'entries';
    }
    if (code === QUOTE) {
      for (;;) {
        index = text.indexOf('"', index + 1);
        if (index < 0) return undefined;
        let slashes = 0;
        while (text.charCodeAt(index - 1 - slashes) === BACKSLASH) slashes++;
        if (slashes % 2 === 0) break;
      }
    } else if (code === COMMA) {
      if (++entries > maxEntries) return 'entries';
    } else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
      if (++depth > maxDepth) return 'depth';
      opened = true;
    } else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) {
      depth--;
    }
  }
  return undefined;
}
