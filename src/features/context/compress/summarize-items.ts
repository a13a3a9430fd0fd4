import type { Summarizer } from '../../../domain/engine/index.js';
import type { SummaryChunk, SummaryItem } from './build-items.js';
import { summaryKey, type SummaryCache } from './summary-cache.js';
import { errorMessage } from '../../../core/util/error-message.js';

/** One summary text and the chunk it was written from. */
export interface ChunkText {
  chunk: SummaryChunk;
  text: string;
  cached: boolean;
}

/** The outcome of one item: its summary texts (one, or the stand-in parts), or why there is none. */
export type ItemResult = { item: SummaryItem; texts: ChunkText[] } | { item: SummaryItem; error: string };

/**
 * Texts a model returns when it has nothing useful; they count as a failure and are never cached
 * (`-` is the failure marker of the Python library lethes, never to be taken for a summary).
 */
const UNUSABLE = new Set(['', '-', '—', 'n/a', 'none', 'null']);

/**
 * Summaries of every item: the first cached option, else all its cached stand-in parts, else
 * one summarizer call for its first option (in parallel; the client caps concurrency). Good new
 * summaries are cached; a failed, empty or placeholder answer is reported and never cached.
 */
export async function summarizeItems(input: {
  items: readonly SummaryItem[];
  messages: readonly unknown[];
  targetOf: (chunk: SummaryChunk) => number;
  summarizer: Summarizer;
  cache: SummaryCache;
  model: string;
  ratio: number;
  /** Ahead of time: write the whole-group option on a miss, and every missing stand-in part too, so any later plan finds them. */
  warm?: boolean;
  signal?: AbortSignal;
}): Promise<ItemResult[]> {
  const keyOf = (chunk: SummaryChunk) => summaryKey(chunk, input.model, input.ratio);
  const keys = [...new Set(input.items.flatMap((item) => [...item.options, ...(item.parts ?? [])].map(keyOf)))];
  const found = await input.cache.getMany(keys);
  const cached = new Map(keys.flatMap((key, position) => (found[position] ? [[key, found[position]!] as const] : [])));
  const fresh: Array<{ key: string; text: string }> = [];
  const results = await Promise.all(
    input.items.map(async (item): Promise<ItemResult> => {
      const write = async (chunk: SummaryChunk): Promise<ChunkText> => {
        const text = (
          await input.summarizer.summarize({
            messages: chunk.indices.map((index) => input.messages[index]),
            targetTokens: input.targetOf(chunk),
            signal: input.signal,
          })
        ).trim();
        if (UNUSABLE.has(text.toLowerCase())) throw new Error('empty summary');
        fresh.push({ key: keyOf(chunk), text });
        return { chunk, text, cached: false };
      };
      try {
        if (input.warm) await Promise.all((item.parts ?? []).filter((part) => !cached.has(keyOf(part))).map(write));
        const hit = item.options.find((chunk) => cached.has(keyOf(chunk)));
        if (hit) return { item, texts: [{ chunk: hit, text: cached.get(keyOf(hit))!, cached: true }] };
        if (item.parts?.length && item.parts.every((part) => cached.has(keyOf(part))))
          return {
            item,
            texts: item.parts.map((part) => ({ chunk: part, text: cached.get(keyOf(part))!, cached: true })),
          };
        const chunk = input.warm ? [...item.options].sort((a, b) => b.ids.length - a.ids.length)[0]! : item.options[0]!;
        return { item, texts: [await write(chunk)] };
      } catch (error) {
        return { item, error: errorMessage(error) };
      }
    }),
  );
  await input.cache.setMany(fresh);
  return results;
}
