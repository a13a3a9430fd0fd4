import type { EngineOptions } from '../types.js';

/**
 * Engine defaults: no token limit; keyword relevance (stems, passages, neighbour smoothing,
 * time anchors) with a slight recency boost (0.1), filled by weight. Chosen on real
 * conversations (bench/recall.ts, LoCoMo dev split) and checked on seeded tool/code chats
 * (bench/recall-synthetic.ts), where a stronger recency boost or per-token density lost recall.
 */
export function defaultEngineOptions(): EngineOptions {
  return {
    maxTokens: 0,
    algorithm: 'recency',
    weighting: 'keyword',
    recencyFactor: 0.1,
    recent: 4,
    toolPenalty: 0.5,
    pairCoherence: 0.8,
    minChatMessages: 1,
    summaryRatio: 0.3,
    summaryMaxTokens: 2048,
    externalWeight: 0.5,
    trimTo: 0.75,
    expectedCompletionTokens: 0,
    roleAlternation: 'any',
  };
}

/** Number if finite, else the fallback. */
function finite(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

/** Defaults merged with the given options; numbers clamped to sane ranges. */
export function resolveEngineOptions(options: Partial<EngineOptions> | undefined): EngineOptions {
  const defaults = defaultEngineOptions();
  const merged: EngineOptions = { ...defaults };
  for (const [key, value] of Object.entries(options ?? {})) {
    if (value !== undefined) (merged as unknown as Record<string, unknown>)[key] = value;
  }
  merged.maxTokens = Math.max(0, Math.floor(finite(merged.maxTokens, 0)));
  merged.recent = Math.max(0, Math.floor(finite(merged.recent, defaults.recent)));
  merged.minChatMessages = Math.max(0, Math.floor(finite(merged.minChatMessages, defaults.minChatMessages)));
  merged.recencyFactor = Math.max(0, finite(merged.recencyFactor, defaults.recencyFactor));
  merged.toolPenalty = Math.min(1, Math.max(0, finite(merged.toolPenalty, defaults.toolPenalty)));
  merged.pairCoherence = Math.min(1, Math.max(0, finite(merged.pairCoherence, defaults.pairCoherence)));
  merged.summaryRatio = Math.min(1, Math.max(0, finite(merged.summaryRatio, defaults.summaryRatio)));
  merged.summaryMaxTokens = Math.max(0, finite(merged.summaryMaxTokens, defaults.summaryMaxTokens));
  merged.externalWeight = Math.min(1, Math.max(0, finite(merged.externalWeight, defaults.externalWeight)));
  merged.trimTo = Math.min(1, Math.max(0.1, finite(merged.trimTo, defaults.trimTo)));
  merged.expectedCompletionTokens = Math.max(0, finite(merged.expectedCompletionTokens, 0));
  if (!['greedy', 'recency', 'dependency', 'prefix_cache', 'cache_stable'].includes(merged.algorithm))
    merged.algorithm = defaults.algorithm;
  if (!['static', 'keyword', 'smart', 'composite'].includes(merged.weighting)) merged.weighting = defaults.weighting;
  if (merged.roleAlternation !== 'strict') merged.roleAlternation = 'any';
  // Set only when capping (the options are hashed into the run id: plans without it keep their ids).
  if (merged.capForced === true)
    merged.guaranteedRecent = Math.min(
      merged.recent,
      Math.max(0, Math.floor(finite(merged.guaranteedRecent, merged.recent))),
    );
  else {
    delete merged.capForced;
    delete merged.guaranteedRecent;
  }
  return merged;
}
