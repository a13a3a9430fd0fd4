import * as crypto from 'node:crypto';

/**
 * Deterministic run id: a hash of the message ids, model and options (pure: same input, same
 * id). The ids (16-character content hashes, thousands of them in a long chat) are folded with
 * a fast 53-bit string hash first, so only a short text goes through sha256.
 */
export function runId(ids: readonly string[], model: string | undefined, options: unknown): string {
  const text = `${model ?? ''}\u0000${JSON.stringify(options)}\u0000${ids.length}\u0000${foldIds(ids)}`;
  const digest =
    typeof crypto.hash === 'function'
      ? crypto.hash('sha256', text, 'base64url')
      : crypto.createHash('sha256').update(text).digest('base64url');
  return `run_${digest.slice(0, 16)}`;
}

/** cyrb53 over the ids in order, a separator between them: 53 bits, as a base-36 string. */
function foldIds(ids: readonly string[]): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (const id of ids) {
    for (let index = 0; index < id.length; index += 1) {
      const code = id.charCodeAt(index);
      h1 = Math.imul(h1 ^ code, 2654435761);
      h2 = Math.imul(h2 ^ code, 1597334677);
    }
    h1 = Math.imul(h1 ^ 44, 2654435761); // ','
    h2 = Math.imul(h2 ^ 44, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}
