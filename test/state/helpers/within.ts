/** Thrown by `within` when a call neither resolved nor rejected in time (a hang). */
export class HangError extends Error {}

/** Settle like `work`, or reject with HangError after `ms` (a generous liveness bound, not a speed claim). */
export function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HangError(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, hang]).finally(() => clearTimeout(timer));
}
