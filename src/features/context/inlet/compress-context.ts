import type { PlanInput } from '../../../domain/engine/index.js';
import { timeoutSignal } from '../../../core/util/timeout-signal.js';
import type { AheadOfTimeRunner } from '../compress/ahead-of-time.js';
import { type CompressedContext, type Compression, planAndCompress } from '../compress/plan-and-compress.js';

/**
 * Plans the context and writes its summaries (when a summarizer is configured), under one deadline for all
 * summarizing of this inlet (retries included) that ends before the host's hook timeout: a slow model falls back to
 * dropping instead of a 504. Ahead-of-time summaries already running for the chat get half of it to finish first.
 */
export async function compressContext(
  input: PlanInput,
  compression: Compression | undefined,
  options: { chatKey: string; runner: AheadOfTimeRunner | undefined; summaryMs: number; signal: AbortSignal },
): Promise<CompressedContext> {
  const deadline = timeoutSignal(options.summaryMs, options.signal);
  try {
    if (compression && options.chatKey) await options.runner?.settle(options.chatKey, options.summaryMs / 2);
    return await planAndCompress(input, compression, { correction: input.correction, signal: deadline.signal });
  } finally {
    deadline.clear();
  }
}
