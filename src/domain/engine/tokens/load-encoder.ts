import { createRequire } from 'node:module';
import { Tiktoken } from 'js-tiktoken/lite';
import { bpeCounter, type RankTable } from './bpe-counter.js';
import { boundedCount } from './long-text-estimate.js';
import type { EncodingName } from './encoding-for-model.js';

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
function loadRanks(encoding: EncodingName): ConstructorParameters<typeof Tiktoken>[0] {
  const loaded = require(`js-tiktoken/ranks/${encoding}`) as { default?: unknown };
  return (loaded.default ?? loaded) as ConstructorParameters<typeof Tiktoken>[0];
}

/** The encoder for an encoding, built lazily once per process. */
export function loadEncoder(encoding: EncodingName): TokenCounter {
  const known = encoders.get(encoding);
  if (known) return known;
  const tiktoken = new Tiktoken(loadRanks(encoding));
  // Internal fields of js-tiktoken 1.0.x; if a future version hides them, fall back to encode().
  const table = tiktoken as unknown as Partial<RankTable>;
  const count =
    table.rankMap instanceof Map && typeof table.patStr === 'string'
      ? bpeCounter(table as RankTable)
      : (text: string) => tiktoken.encode(text, [], []).length;
  const encoder: TokenCounter = { count: (text) => (text.length === 0 ? 0 : boundedCount(text, count)) };
  encoders.set(encoding, encoder);
  return encoder;
}
