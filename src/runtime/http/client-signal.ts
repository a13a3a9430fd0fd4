import type { ServerResponse } from 'node:http';

/**
 * A signal aborted when the client goes away before the answer is written (its connection closed early), with
 * `client closed the connection` as the reason: hooks and pipes pass it on to their upstream calls.
 */
export function clientSignal(response: ServerResponse): AbortSignal {
  const abort = new AbortController();
  response.on('close', () => {
    if (!response.writableFinished) abort.abort(new Error('client closed the connection'));
  });
  return abort.signal;
}
