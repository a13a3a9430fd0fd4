import type { EvidenceRef } from './conversation-generator.js';

/** Share of the evidence messages that are in the kept set (1 when there is no evidence). */
export function evidenceRecall(evidence: readonly EvidenceRef[], kept: ReadonlySet<number>): number {
  if (evidence.length === 0) return 1;
  return evidence.filter((ref) => kept.has(ref.index)).length / evidence.length;
}

/** Share of the last `count` messages of a request of `length` messages that are kept. */
export function recentRetention(length: number, kept: ReadonlySet<number>, count = 4): number {
  const first = Math.max(0, length - count);
  const total = length - first;
  if (total === 0) return 1;
  let hits = 0;
  for (let index = first; index < length; index++) if (kept.has(index)) hits++;
  return hits / total;
}

/** Arithmetic mean (0 for an empty list). */
export function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** The q-quantile (0..1) by nearest rank on a sorted copy. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}
