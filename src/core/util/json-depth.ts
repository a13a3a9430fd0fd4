const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

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
  if (typeof text === 'string') return scanString(text, maxDepth);
  return scanBytes(Buffer.isBuffer(text) ? text : Buffer.from(text.buffer, text.byteOffset, text.byteLength), maxDepth);
}

// The same loop twice, so each stays monomorphic (Buffer indexing vs charCodeAt).
function scanBytes(bytes: Buffer, maxDepth: number): boolean {
  let depth = 0;
  for (let index = 0; index < bytes.length; index++) {
    const code = bytes[index]!;
    if (code === QUOTE) {
      // Jump to the closing quote: one not preceded by an odd run of backslashes.
      for (;;) {
        index = bytes.indexOf(QUOTE, index + 1);
        if (index < 0) return false;
        let slashes = 0;
        while (bytes[index - 1 - slashes] === BACKSLASH) slashes++;
        if (slashes % 2 === 0) break;
      }
    } else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
      if (++depth > maxDepth) return true;
    } else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}

function scanString(text: string, maxDepth: number): boolean {
  let depth = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      for (;;) {
        index = text.indexOf('"', index + 1);
        if (index < 0) return false;
        let slashes = 0;
        while (text.charCodeAt(index - 1 - slashes) === BACKSLASH) slashes++;
        if (slashes % 2 === 0) break;
      }
    } else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
      if (++depth > maxDepth) return true;
    } else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}
