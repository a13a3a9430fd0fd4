import { quantile } from './metrics.js';

/** Median and 95th percentile of a set of durations, in milliseconds. */
export interface LatencySummary {
  median: number;
  p95: number;
  runs: number;
}

/** Milliseconds one synchronous call takes (high-resolution clock). */
export function timeSync(run: () => unknown): number {
  const start = performance.now();
  run();
  return performance.now() - start;
}

/** Milliseconds one asynchronous call takes. */
export async function timeAsync(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

/** Median and p95 (nearest rank) of durations. */
export function summarize(durations: readonly number[]): LatencySummary {
  return { median: quantile(durations, 0.5), p95: quantile(durations, 0.95), runs: durations.length };
}

/** A duration for a table: µs below 1 ms, ms with two or one decimals above. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return 'n/a';
  if (ms < 1) return `${(ms * 1000).toFixed(0)} µs`;
  return ms < 100 ? `${ms.toFixed(2)} ms` : `${ms.toFixed(0)} ms`;
}
