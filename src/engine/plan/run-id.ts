import { createHash } from 'node:crypto';

/** Deterministic run id: a hash of the message ids, model and options (pure: same input, same id). */
export function runId(ids: readonly string[], model: string | undefined, options: unknown): string {
  const hash = createHash('sha256');
  hash.update(model ?? '');
  hash.update(JSON.stringify(options));
  for (const id of ids) hash.update(id);
  return `run_${hash.digest('base64url').slice(0, 16)}`;
}
