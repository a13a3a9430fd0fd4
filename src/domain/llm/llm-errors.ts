import { UpstreamError } from '../../core/errors/index.js';

/** Why a model call failed: HTTP status, deadline, caller abort, network, or an unusable answer. */
export type LlmFailure = 'http' | 'timeout' | 'aborted' | 'network' | 'response';

/** 502: a call to the OpenAI-compatible model API failed. Messages never contain the API key. */
export class LlmError extends UpstreamError {
  constructor(
    readonly failure: LlmFailure,
    message: string,
    status?: number,
    /** Attempts made (retries + 1). */
    public attempts = 1,
    /** Wait the server asked for (Retry-After), ms. */
    readonly retryAfterMs?: number,
  ) {
    super(message, status);
    this.name = 'LlmError';
  }

  /** True when another attempt may succeed (429, 5xx, network). */
  get retryable(): boolean {
    if (this.failure === 'network') return true;
    if (this.failure !== 'http') return false;
    const status = this.upstreamStatus ?? 0;
    return status === 429 || status >= 500;
  }
}

/** Replaces every occurrence of `secret` (and of `Bearer secret`) in `text` with `[redacted]`. */
export function redact(text: string, secret: string | undefined): string {
  if (!secret || secret.length < 4) return text;
  return text.split(secret).join('[redacted]');
}
