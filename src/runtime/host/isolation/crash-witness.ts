/**
 * Which filter code is running in a worker thread, told to the supervisor (`npm start`) over the server's IPC
 * channel: one message when a worker starts importing a filter or running one of its hooks, one when that ends. A
 * filter that takes the whole process down (a native crash, a signal sent by a program it ran) leaves no log line of
 * its own; the supervisor then names the filters that were running when the server died. The message is written to
 * the channel before the worker is given the call (libuv writes to the pipe at once when nothing is queued), so it
 * is in the supervisor's pipe even when the worker kills the process the moment it starts. Without a supervisor (no
 * IPC channel) nothing is sent.
 */

/** One IPC message from the server to the supervisor about filter code running in a worker. */
export type FilterRunMessage =
  | { eunoe: 'filter-run'; run: number; filter: string; what: string }
  | { eunoe: 'filter-run-end'; run: number };

let nextRun = 0;
const ignore = () => undefined;

function post(message: FilterRunMessage): void {
  try {
    // With a callback, a closed channel is reported to it instead of an 'error' event.
    process.send?.(message, undefined, {}, ignore);
  } catch {
    // the supervisor is gone: the server is shutting down (main.ts)
  }
}

/**
 * `filter`'s code starts running `what` (`import`, or a hook name) in a worker. Returns the function to call when
 * it ended (settled, timed out or crashed).
 */
export function witnessFilterRun(filter: string, what: string): () => void {
  if (!process.send || !process.connected) return ignore;
  const run = ++nextRun;
  post({ eunoe: 'filter-run', run, filter, what });
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    post({ eunoe: 'filter-run-end', run });
  };
}

/** A FilterRunMessage, or undefined for anything else the channel carries. */
export function asFilterRunMessage(message: unknown): FilterRunMessage | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const { eunoe, run, filter, what } = message as Record<string, unknown>;
  if (typeof run !== 'number') return undefined;
  if (eunoe === 'filter-run-end') return { eunoe, run };
  if (eunoe === 'filter-run' && typeof filter === 'string' && typeof what === 'string')
    return { eunoe, run, filter, what };
  return undefined;
}
