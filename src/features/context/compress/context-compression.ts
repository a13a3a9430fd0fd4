import { EmbeddingScorer } from './scoring/embedding-scorer.js';
import type { WeightedScorer } from './scoring/external-scores.js';
import { LlmAnalyzer } from './scoring/llm-analyzer.js';
import type { LlmClientPool } from '../../../domain/llm/client-pool.js';
import { parseExtraBody } from '../../../domain/llm/llm-client-options.js';
import type { LlmClient } from '../../../domain/llm/llm-client.js';
import { compressSettings } from './compress-settings.js';
import { LlmSummarizer } from './llm-summarizer.js';
import type { Compression } from './plan-and-compress.js';
import { SummaryCache, type CacheStore } from './summary-cache.js';
import { DEFAULT_LEVEL_POLICY } from './summary-level.js';
import type { SummaryValves } from './summary-valves.js';
import { StateUnavailableError } from '../../../core/errors/index.js';
import { reportDegraded } from '../../../core/util/store-outage.js';

/** Where the compression pieces report store errors. */
type Warn = (fields: Record<string, unknown>, message: string) => void;

/** The client for the valves (per lane), or undefined when no summarizer is configured (no base URL or model). */
export function clientFor(
  pool: LlmClientPool,
  valves: SummaryValves,
  lane: 'inlet' | 'background' = 'inlet',
): LlmClient | undefined {
  if (!valves.summary_base_url.trim() || !valves.summary_model.trim()) return undefined;
  return pool.get(
    {
      baseUrl: valves.summary_base_url.trim(),
      apiKey: valves.summary_api_key,
      model: valves.summary_model.trim(),
      embeddingModel: valves.embedding_model.trim() || undefined,
      extraBody: parseExtraBody(valves.summary_extra_body),
      timeoutMs: valves.summary_timeout_ms,
      retries: valves.summary_retries,
      concurrency: valves.summary_concurrency,
    },
    lane,
  );
}

/** Cache TTL in ms from the valve (0 = no expiry). */
export function cacheTtlMs(valves: SummaryValves): number {
  return Math.round(valves.summary_cache_ttl_hours * 3_600_000);
}

/** The summarizing half of a context run, from the valves. */
export function compressionFor(client: LlmClient, valves: SummaryValves, store: CacheStore, warn: Warn): Compression {
  return {
    summarizer: new LlmSummarizer(client),
    cache: new SummaryCache(store, cacheTtlMs(valves), (error, action) =>
      error instanceof StateUnavailableError
        ? reportDegraded(undefined, 'summary cache unavailable', error, { action })
        : warn({ err: error.message, action }, 'summary cache unavailable'),
    ),
    settings: compressSettings({
      model: client.options.model,
      ratio: valves.summary_ratio,
      factReceipt: valves.fact_receipt,
      levels: {
        ...DEFAULT_LEVEL_POLICY,
        enabled: {
          turn: valves.summary_level_turn,
          segment: valves.summary_level_segment,
          conversation: valves.summary_level_conversation,
        },
      },
    }),
  };
}

/** The scorers the `scoring` valve asks for, with their shares. */
export function scorersFor(client: LlmClient, valves: SummaryValves, store: CacheStore): WeightedScorer[] {
  const ttl = cacheTtlMs(valves);
  const scorers: WeightedScorer[] = [];
  if (valves.scoring === 'embedding' || valves.scoring === 'embedding+llm')
    scorers.push({
      scorer: new EmbeddingScorer(client, store, ttl),
      share: valves.scoring === 'embedding' ? 1 : valves.embedding_share,
    });
  if (valves.scoring === 'llm' || valves.scoring === 'embedding+llm')
    scorers.push({
      scorer: new LlmAnalyzer(client, store, ttl, valves.analyzer_window),
      share: valves.scoring === 'llm' ? 1 : 1 - valves.embedding_share,
    });
  return scorers;
}
