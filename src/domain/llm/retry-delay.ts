/**
 * Milliseconds the server asked us to wait (`Retry-After`: seconds or an HTTP date), or
 * undefined when absent or unreadable.
 */
export function retryAfterMs(header: string | string[] | undefined, now = Date.now()): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Delay before retry `attempt` (1-based): Retry-After when given, else exponential backoff with jitter; capped at `maxMs`. */
export function retryDelayMs(
  attempt: number,
  options: { baseMs: number; maxMs: number; retryAfter?: number; random?: () => number },
): number {
  const random = options.random ?? Math.random;
  const backoff = options.baseMs * 2 ** (attempt - 1) * (0.5 + random() / 2);
  return Math.min(options.maxMs, Math.max(0, Math.round(options.retryAfter ?? backoff)));
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
