import { StateUnavailableError } from '../../core/errors/index.js';

/**
 * Settle with `work`, or reject with StateUnavailableError after `timeoutMs`, whichever
 * comes first. A late rejection of `work` is swallowed so it never becomes unhandled.
 */
export function withTimeout<T>(work: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new StateUnavailableError(`State backend did not answer ${what} within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  work.catch(() => {});
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
