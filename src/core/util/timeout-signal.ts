/** A signal that aborts after a time or with its parent, and the way to let go of it. */
export interface TimeoutSignal {
  signal: AbortSignal;
  /** True once the time ran out (not when the parent aborted first). */
  readonly timedOut: boolean;
  /** Stops the timer and stops following the parent: call it when the guarded work is done. */
  clear(): void;
}

/**
 * Aborts after `ms` (reason: a `TimeoutError` DOMException, like `AbortSignal.timeout`) or when `parent`
 * aborts (its reason), whichever comes first; the other one is then let go. Used instead of
 * `AbortSignal.any([parent, AbortSignal.timeout(ms)])`: on Node 20 a timeout signal held only by a composite can
 * be garbage-collected before it fires (nodejs/node#57736), so under memory pressure the deadline silently never
 * comes. Here the timer's callback holds the controller.
 */
export function timeoutSignal(ms: number, parent?: AbortSignal): TimeoutSignal {
  const controller = new AbortController();
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  const clear = () => {
    clearTimeout(timer);
    parent?.removeEventListener('abort', onParentAbort);
  };
  function onParentAbort(): void {
    clear();
    controller.abort(parent?.reason);
  }
  if (parent?.aborted) {
    controller.abort(parent.reason);
  } else {
    timer = setTimeout(() => {
      clear();
      timedOut = true;
      controller.abort(new DOMException(`The operation timed out after ${ms} ms`, 'TimeoutError'));
    }, ms);
    timer.unref();
    parent?.addEventListener('abort', onParentAbort, { once: true });
  }
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    clear,
  };
}
