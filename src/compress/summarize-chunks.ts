import type { Summarizer } from '../engine/index.js';
import type { SummaryChunk } from './build-chunks.js';
import { summaryKey, type SummaryCache } from './summary-cache.js';

/** The outcome of one chunk: its summary text, or why there is none. */
export type ChunkResult = { chunk: SummaryChunk; text: string; cached: boolean } | { chunk: SummaryChunk; error: string };

/** Texts a model returns when it has nothing useful (lethes' failure marker among them, S1). */
const UNUSABLE = new Set(['', '-', '—', 'n/a', 'none', 'null']);

/**
 * Summary of every chunk: from the cache when present, else one summarizer call per
 * chunk (in parallel; the client caps concurrency). Good new summaries are cached; a
 * failed, empty or placeholder answer is reported and never cached.
 */
export async function summarizeChunks(input: {
  chunks: readonly SummaryChunk[];
  messages: readonly unknown[];
  targets: readonly number[];
  summarizer: Summarizer;
  cache: SummaryCache;
  model: string;
  ratio: number;
  signal?: AbortSignal;
}): Promise<ChunkResult[]> {
  const keys = input.chunks.map((chunk) => summaryKey(chunk, input.model, input.ratio));
  const cached = await input.cache.getMany(keys);
  const results = await Promise.all(
    input.chunks.map(async (chunk, position): Promise<ChunkResult> => {
      const hit = cached[position];
      if (hit) return { chunk, text: hit, cached: true };
      try {
        const text = (await input.summarizer.summarize({ messages: chunk.indices.map((index) => input.messages[index]), targetTokens: input.targets[position]!, signal: input.signal })).trim();
        if (UNUSABLE.has(text.toLowerCase())) return { chunk, error: 'empty summary' };
        return { chunk, text, cached: false };
      } catch (error) {
        return { chunk, error: (error as Error)?.message ?? String(error) };
      }
    }),
  );
  const fresh = results.flatMap((result, position) => ('text' in result && !result.cached ? [{ key: keys[position]!, text: result.text }] : []));
  await input.cache.setMany(fresh);
  return results;
}
