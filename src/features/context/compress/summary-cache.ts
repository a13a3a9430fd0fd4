import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { SummaryChunk } from './build-items.js';

/** The part of the filter's state store the caches need (ScopedState satisfies it). */
export interface CacheStore {
  getMany<T = unknown>(keys: readonly string[]): Promise<(T | undefined)[]>;
  setMany(entries: readonly { key: string; value: unknown; ttlMs?: number }[]): Promise<void>;
}

/** A cached summary. */
export interface CachedSummary {
  text: string;
  /** Epoch ms when it was written. */
  at: number;
}

/** What a read needs of a stored `CachedSummary` (written by an older version, `at` may be missing). */
const cachedText = z.looseObject({ text: z.string() });

/** Store key of a chunk's summary: content ids, model, level and ratio (a different ratio is a different summary). */
export function summaryKey(chunk: Pick<SummaryChunk, 'ids' | 'level'>, model: string, ratio: number): string {
  const digest = createHash('sha256')
    .update(`${model}\u0000${chunk.level}\u0000${ratio}\u0000${chunk.ids.join(',')}`)
    .digest('base64url')
    .slice(0, 32);
  return `sum:${digest}`;
}

/**
 * Summaries cached in the state store (shared by replicas, kept across restarts). A store
 * failure reads as a miss and a failed write is reported, never thrown. Empty text is never
 * stored, so a failed summary is retried on the next request instead of being served from the cache.
 */
export class SummaryCache {
  constructor(
    private readonly store: CacheStore,
    private readonly ttlMs: number,
    private readonly onError: (error: Error, action: 'read' | 'write') => void = () => {},
  ) {}

  /** Cached texts aligned with `keys` (undefined = miss). */
  async getMany(keys: readonly string[]): Promise<(string | undefined)[]> {
    if (keys.length === 0) return [];
    try {
      const found = await this.store.getMany(keys);
      return found.map((value) => {
        const text = cachedText.safeParse(value).data?.text;
        return text?.trim() ? text : undefined;
      });
    } catch (error) {
      this.onError(error as Error, 'read');
      return keys.map(() => undefined);
    }
  }

  /** Stores non-empty summaries by key. */
  async setMany(entries: ReadonlyArray<{ key: string; text: string }>): Promise<void> {
    const usable = entries.filter((entry) => entry.text.trim().length > 0);
    if (usable.length === 0) return;
    try {
      await this.store.setMany(
        usable.map((entry) => ({
          key: entry.key,
          value: { text: entry.text, at: Date.now() } satisfies CachedSummary,
          ttlMs: this.ttlMs,
        })),
      );
    } catch (error) {
      this.onError(error as Error, 'write');
    }
  }
}
