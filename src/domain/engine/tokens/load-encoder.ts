import { createRequire } from 'node:module';
import { bpeCounter } from './bpe-counter.js';
import { boundedCount } from './long-text-estimate.js';
import type { EncodingName } from './encoding-for-model.js';
import { rankTable, type RankFile } from './rank-table.js';

/** What the engine needs of an encoder. */
export interface TokenCounter {
  /**
   * Number of tokens in `text` (special-token text counted as plain text); a text over EXACT_COUNT_CHARS
   * (128 Ki characters) is estimated from excerpts (`long-text-estimate.ts`).
   */
  count(text: string): number;
}

const require = createRequire(import.meta.url);
const encoders = new Map<EncodingName, TokenCounter>();

/** Rank files are required on first use only (o200k is ~2 MB of JS), synchronously. */
function loadRanks(encoding: EncodingName): RankFile {
  const loaded = require(`js-tiktoken/ranks/${encoding}`) as { default?: RankFile } & Partial<RankFile>;
  return loaded.default ?? (loaded as RankFile);
}

/** The encoder for an encoding, built lazily once per process. */
export function loadEncoder(encoding: EncodingName): TokenCounter {
  const known = encoders.get(encoding);
  if (known) return known;
  const count = bpeCounter(rankTable(loadRanks(encoding)));
  const encoder: TokenCounter = { count: (text) => (text.length === 0 ? 0 : boundedCount(text, count)) };
  encoders.set(encoding, encoder);
  return encoder;
}
