/** How `waitFor` polls. */
export interface WaitForOptions<T> {
  /** The value is accepted when this returns true (default: when it is truthy). */
  until?: (value: T) => boolean;
  /** Give up after this long: a generous liveness bound for a loaded machine, never a speed claim (default 10 s). */
  timeoutMs?: number;
  /** Pause between probes (default 20 ms). */
  intervalMs?: number;
}

/**
 * The suite's one polling helper: call `probe` until its value is accepted and return that value;
 * throw with the last value seen once `timeoutMs` has passed. Use it where a real process, socket,
 * file watcher or background queue brings a condition about. Where time itself is the subject (TTL,
 * cron, leases, debounce), use fake timers instead; where the subject is "nothing more happens",
 * wait for a later event that proves the earlier one had its chance.
 */
export async function waitFor<T>(probe: () => T | Promise<T>, options: WaitForOptions<T> = {}): Promise<T> {
  const { until = (value: T) => Boolean(value), timeoutMs = 10_000, intervalMs = 20 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (until(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`condition not met within ${timeoutMs} ms; last value: ${describe(value)}`);
    await sleep(intervalMs);
  }
}

function describe(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Let real time pass. Only for time kept by something outside this process that fake timers cannot
 * reach (Redis expiring a key, a child process's timer) — never to "let things settle".
 */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
