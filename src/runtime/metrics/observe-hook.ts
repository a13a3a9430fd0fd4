import type { Metrics } from './metrics.js';

/** Run `call` (one hook) and record its duration and failure kind in `metrics`, when given. */
export async function observeHook<T>(
  metrics: Metrics | undefined,
  filter: string,
  hook: string,
  call: () => Promise<T>,
): Promise<T> {
  if (!metrics) return call();
  const started = process.hrtime.bigint();
  const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
  try {
    const result = await call();
    metrics.observeHook(filter, hook, seconds());
    return result;
  } catch (error) {
    metrics.observeHook(filter, hook, seconds(), error as { code?: string; status?: number });
    throw error;
  }
}
