/**
 * The sliding-window rule of `StateStore.windowAdmit`, on the window's admission times: the SQLite backend runs it in
 * a transaction, the Redis backend runs the same rule in a Lua script (redis-scripts.ts, `windowAdmitScript`).
 */
import type { WindowAdmission, WindowAdmitOptions } from './types.js';

/** The limit and window as the backends use them: whole numbers, a limit of at least 1. */
export function windowBounds(options: WindowAdmitOptions): { limit: number; windowMs: number; now: number } {
  return {
    limit: Math.max(1, Math.floor(options.limit)),
    windowMs: Math.max(1, Math.floor(options.windowMs)),
    now: Math.floor(options.now),
  };
}

/**
 * Admit or refuse at `now` given the window's admission times (any order): the times still in `(now - windowMs, now]`
 * or later (another replica's clock ahead) count; the newest `limit` of them are kept. Admitted: `now` joins them.
 * Refused: the window has room again when the oldest of the `limit` newest leaves it (its time + `windowMs`).
 * @returns the decision and the times to store (ascending, at most `limit`)
 */
export function admitAt(
  stored: readonly number[],
  options: WindowAdmitOptions,
): {
  admission: WindowAdmission;
  times: number[];
} {
  const { limit, windowMs, now } = windowBounds(options);
  const live = stored
    .filter((time) => Number.isFinite(time) && time > now - windowMs)
    .sort((a, b) => a - b)
    .slice(-limit);
  if (live.length < limit) {
    const times = [...live, now].sort((a, b) => a - b);
    return { admission: { admitted: true, count: times.length }, times };
  }
  return { admission: { admitted: false, retryAt: live[0]! + windowMs }, times: live };
}
