import type { Scorer } from '../../../../domain/engine/index.js';
import { timeoutSignal } from '../../../../core/util/timeout-signal.js';
import { errorMessage } from '../../../../core/util/error-message.js';

/** A scorer and its share in the blend. */
export interface WeightedScorer {
  scorer: Scorer;
  share: number;
}

/** Blended scores, and which scorers answered. */
export interface ExternalScores {
  scores?: Record<string, number>;
  used: string[];
  failed: Array<{ name: string; error: string }>;
}

/** Runs `scorer` with a deadline; rejects on timeout or error. */
function withDeadline(
  scorer: Scorer,
  request: Parameters<Scorer['score']>[0],
  timeoutMs: number,
): Promise<Record<string, number>> {
  const deadline = timeoutSignal(timeoutMs, request.signal);
  const { signal } = deadline;
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new Error(deadline.timedOut ? `timed out after ${timeoutMs} ms` : 'cancelled'));
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort(); // a parent aborted before the call: no event will come
    scorer
      .score({ ...request, signal })
      .then(resolve, reject)
      .finally(() => {
        signal.removeEventListener('abort', onAbort);
        deadline.clear();
      });
  });
}

/**
 * Runs the async scorers in parallel (each bounded by `timeoutMs`) and blends the ones that
 * answered by their shares (renormalised). No answer at all gives no scores: the engine
 * then weighs by keywords alone, as without model-assisted scoring.
 */
export async function externalScores(input: {
  scorers: readonly WeightedScorer[];
  messages: unknown[];
  ids: string[];
  query: string;
  timeoutMs: number;
  signal?: AbortSignal;
}): Promise<ExternalScores> {
  const settled = await Promise.allSettled(
    input.scorers.map(({ scorer }) =>
      withDeadline(
        scorer,
        { messages: input.messages, ids: input.ids, query: input.query, signal: input.signal },
        input.timeoutMs,
      ),
    ),
  );
  const used: string[] = [];
  const failed: ExternalScores['failed'] = [];
  const parts: Array<{ scores: Record<string, number>; share: number }> = [];
  settled.forEach((outcome, index) => {
    const { scorer, share } = input.scorers[index]!;
    if (outcome.status === 'fulfilled') {
      used.push(scorer.name);
      parts.push({ scores: outcome.value, share: Math.max(0, share) });
    } else failed.push({ name: scorer.name, error: errorMessage(outcome.reason) });
  });
  if (parts.length === 0) return { used, failed };
  const total = parts.reduce((sum, part) => sum + part.share, 0) || parts.length;
  const scores: Record<string, number> = {};
  for (const id of input.ids) {
    let value = 0;
    for (const part of parts) value += ((part.share || 1) / total) * (part.scores[id] ?? 0.5);
    scores[id] = Math.min(1, Math.max(0, value));
  }
  return { scores, used, failed };
}
