import * as crypto from 'node:crypto';

/** Deterministic run id: a hash of the message ids, model and options (pure: same input, same id). */
export function runId(ids: readonly string[], model: string | undefined, options: unknown): string {
  const text = `${model ?? ''}\u0000${JSON.stringify(options)}\u0000${ids.join(',')}`;
  const digest =
    typeof crypto.hash === 'function'
      ? crypto.hash('sha256', text, 'base64url')
      : crypto.createHash('sha256').update(text).digest('base64url');
  return `run_${digest.slice(0, 16)}`;
}
