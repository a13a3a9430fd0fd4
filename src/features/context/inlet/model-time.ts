/**
 * How long a model call of this inlet may take. A fifth of the hook's time (at least 1.5 s) is kept back from model
 * calls (scoring, summaries) for the fallback and the reply, so a busy machine still answers before the host's 504:
 * a model call gets at most `limitMs` and ends that reserve before the hook's deadline (whole ms, at least 100).
 */
export function modelTimeBudget(hookDeadline: number): (limitMs: number) => number {
  const reserveMs = Math.max(1500, Math.round((hookDeadline - Date.now()) / 5));
  return (limitMs) => Math.max(100, Math.floor(Math.min(limitMs, hookDeadline - Date.now() - reserveMs)));
}
