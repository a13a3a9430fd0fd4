import type { PlanResult } from '../engine/index.js';
import type { SummaryLevel } from './summary-level.js';

/** Turns per segment; segments are aligned on absolute turn numbers so they stay stable as the chat grows. */
export const TURNS_PER_SEGMENT = 4;

/** A group of messages summarized by one model call and cached as one entry. */
export interface SummaryChunk {
  level: SummaryLevel;
  /** Engine message ids, in order (the cache key is derived from them). */
  ids: string[];
  /** Indices in the input messages. */
  indices: number[];
  tokens: number;
}

/**
 * Splits the plan's summarize entries into chunks for `level`: one per turn (a turn starts
 * at a user message, so tool exchanges stay with their turn), one per aligned segment of
 * `TURNS_PER_SEGMENT` turns, or a single chunk for the whole older conversation. Original order.
 */
export function buildChunks(result: PlanResult, messages: readonly unknown[], level: SummaryLevel): SummaryChunk[] {
  const chunks = new Map<string, SummaryChunk>();
  let turn = -1;
  for (const entry of result.plan.entries) {
    if ((messages[entry.index] as { role?: unknown } | undefined)?.role === 'user') turn += 1;
    if (entry.disposition !== 'summarize') continue;
    const at = Math.max(0, turn);
    const group = level === 'conversation' ? 'all' : level === 'segment' ? `s${Math.floor(at / TURNS_PER_SEGMENT)}` : `t${at}`;
    let chunk = chunks.get(group);
    if (!chunk) {
      chunk = { level, ids: [], indices: [], tokens: 0 };
      chunks.set(group, chunk);
    }
    chunk.ids.push(entry.id);
    chunk.indices.push(entry.index);
    chunk.tokens += entry.tokens;
  }
  return [...chunks.values()];
}
