import type { TokenCache } from '../types.js';
import { countMessageTokens } from './count-message-tokens.js';
import type { EncodingName } from './encoding-for-model.js';
import { loadEncoder } from './load-encoder.js';

/** What counting needs of a message (a `ChatNode` is one): its input index, its id (the cache key) and the message. */
export interface CountedMessage {
  index: number;
  id: string;
  message: unknown;
}

/** Per-message token counts (× correction, rounded up) and how many came from the cache. */
export interface TokenCounts {
  tokens: Float64Array;
  cacheHits: number;
}

/**
 * Counts every message once: the cache (keyed by id, `encoding:id` for non-o200k) holds raw counts, so a message
 * is tokenized once per chat, not once per turn. The encoder loads only on a cache miss.
 */
export function countConversationTokens(
  nodes: readonly CountedMessage[],
  encoding: EncodingName,
  cache: TokenCache | undefined,
  correction: number,
): TokenCounts {
  const tokens = new Float64Array(nodes.length);
  let cacheHits = 0;
  for (const node of nodes) {
    // o200k (the common case) is keyed by the bare id: no string built per message per call.
    const key = encoding === 'o200k_base' ? node.id : `${encoding}:${node.id}`;
    let raw = cache?.get(key);
    if (raw === undefined) {
      raw = countMessageTokens(node.message, loadEncoder(encoding));
      cache?.set(key, raw);
    } else cacheHits += 1;
    tokens[node.index] = correction === 1 ? raw : Math.ceil(raw * correction);
  }
  return { tokens, cacheHits };
}
