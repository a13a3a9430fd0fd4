/**
 * Open WebUI's tool-call blocks inside assistant content (`serialize_content_blocks` in
 * backend/open_webui/utils/middleware.py): `<details type="tool_calls" done="true" id="…" name="…"
 * arguments="…" result="…" files="…" embeds="…">` followed by `<summary>Tool Executed</summary>` and `</details>`,
 * where `result` is `html.escape(json.dumps(result))`: the JSON of the result, HTML-escaped.
 */

/** Marks a content that may carry tool-call blocks. */
export const TOOL_CALLS_BLOCK = '<details type="tool_calls"';

const OPENING = /<details type="tool_calls"[^>]*>/g;
const RESULT = / result="([^"]*)"/;
const NAME = / name="([^"]*)"/;

/** One block's result in a content string. */
export interface DetailsResult {
  /** Tool name (`name` attribute), unescaped. */
  name: string;
  /** The decoded result as text (a JSON string decoded, any other JSON value as its JSON). */
  text: string;
  /** The result was a JSON string (re-encoded as one). */
  wasString: boolean;
  /** Offsets of the attribute's value in the content. */
  start: number;
  end: number;
}

/** Python's `html.unescape` for what `html.escape` writes (and numeric references). */
export function unescapeHtml(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#x27|#39|#x([0-9a-fA-F]+)|#(\d+));/g, (match, name: string, hex, dec) => {
    if (hex) return String.fromCodePoint(Number.parseInt(hex, 16));
    if (dec) return String.fromCodePoint(Number.parseInt(dec, 10));
    return { amp: '&', lt: '<', gt: '>', quot: '"', '#x27': "'", '#39': "'" }[name] ?? match;
  });
}

/** Python's `html.escape(text, quote=True)`. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#x27;');
}

/** The results of the tool-call blocks of `content`, in order (blocks without a result are left out). */
export function detailsResults(content: string): DetailsResult[] {
  const results: DetailsResult[] = [];
  if (!content.includes(TOOL_CALLS_BLOCK)) return results;
  for (const match of content.matchAll(OPENING)) {
    const tag = match[0];
    const result = RESULT.exec(tag);
    if (!result) continue;
    const raw = unescapeHtml(result[1]!);
    let text = raw;
    let wasString = false;
    try {
      const value: unknown = JSON.parse(raw);
      if (typeof value === 'string') {
        text = value;
        wasString = true;
      }
    } catch {
      // not JSON: the attribute's text as it is
    }
    const start = match.index + result.index + ' result="'.length;
    results.push({
      name: unescapeHtml(NAME.exec(tag)?.[1] ?? ''),
      text,
      wasString,
      start,
      end: start + result[1]!.length,
    });
  }
  return results;
}

/** The attribute value for a new result text, encoded as Open WebUI encodes it. */
export function encodeResult(text: string, wasString: boolean): string {
  return escapeHtml(wasString ? JSON.stringify(text) : text);
}

/** `content` with the given results' values replaced (each `{start, end, value}`), everything else byte for byte. */
export function replaceResults(content: string, replacements: { start: number; end: number; value: string }[]): string {
  let out = '';
  let at = 0;
  for (const { start, end, value } of [...replacements].sort((a, b) => a.start - b.start)) {
    out += content.slice(at, start) + value;
    at = end;
  }
  return out + content.slice(at);
}

/** Open WebUI's `<details …>…</details>` blocks (tool calls, reasoning, code interpreter) of a content string. */
const DETAILS_BLOCK = /<details\b[^>]*>[\s\S]*?<\/details>/g;

/** `content` without its `<details>` blocks: the text the model wrote, not the tool results or reasoning shown with it. */
export function withoutDetailsBlocks(content: string): string {
  return content.includes('<details') ? content.replace(DETAILS_BLOCK, '') : content;
}

/** Only the `<details>` blocks of `content`, one per line (empty when it has none). */
export function onlyDetailsBlocks(content: string): string {
  return content.includes('<details') ? (content.match(DETAILS_BLOCK) ?? []).join('\n') : '';
}
