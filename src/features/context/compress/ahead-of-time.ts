import type { Lease } from '../../../state/types.js';
import { waitAtMost } from '../../../core/util/wait-at-most.js';

/** Where a background job takes its per-chat lease (the filter's state store). */
export interface LeaseStore {
  acquireLease(name: string, ttlMs: number): Promise<Lease | undefined>;
}

/** Why a job did or did not start. */
export type ScheduleResult = 'started' | 'busy' | 'at-capacity' | 'closed';

/**
 * Runs bounded background jobs after a turn (ahead-of-time summaries): one per chat at a
 * time across replicas (a lease in the state store), at most `maxConcurrent` in this
 * process, each aborted after `timeoutMs`. Errors are reported, never thrown.
 */
export class AheadOfTimeRunner {
  private readonly running = new Map<string, Promise<void>>();
  private readonly controllers = new Set<AbortController>();
  private closed = false;

  constructor(
    private readonly options: {
      maxConcurrent: number;
      timeoutMs: number;
      onError?: (error: Error, chatKey: string) => void;
    },
  ) {}

  /**
   * Starts `job` for `chatKey` unless this chat already has one, the cap is reached, or the runner is closed.
   * `limits` (the valves in force now) replace the constructor's for this job: a valve change applies to the next job.
   */
  async schedule(
    store: LeaseStore,
    chatKey: string,
    job: (signal: AbortSignal) => Promise<void>,
    limits: Partial<AheadOfTimeRunner['options']> = {},
  ): Promise<ScheduleResult> {
    const { maxConcurrent, timeoutMs, onError } = { ...this.options, ...limits };
    if (this.closed) return 'closed';
    if (this.running.has(chatKey)) return 'busy';
    if (this.running.size >= maxConcurrent) return 'at-capacity';
    const lease = await store.acquireLease(`aot:${chatKey}`, timeoutMs + 5_000).catch(() => undefined);
    if (!lease) return 'busy';
    const controller = new AbortController();
    this.controllers.add(controller);
    const timer = setTimeout(
      () => controller.abort(new Error(`ahead-of-time job timed out after ${timeoutMs} ms`)),
      timeoutMs,
    );
    const run = (async () => {
      try {
        await job(controller.signal);
      } catch (error) {
        onError?.(error instanceof Error ? error : new Error(String(error)), chatKey);
      } finally {
        clearTimeout(timer);
        this.controllers.delete(controller);
        this.running.delete(chatKey);
        await lease.release().catch(() => {});
      }
    })();
    this.running.set(chatKey, run);
    return 'started';
  }

  /** Waits (at most `maxWaitMs`) for this process's job of `chatKey`, so an inlet uses its summaries instead of repeating its calls. */
  async settle(chatKey: string, maxWaitMs: number): Promise<void> {
    const run = this.running.get(chatKey);
    if (!run) return;
    await waitAtMost(run, maxWaitMs);
  }

  /** Jobs running now in this process. */
  get size(): number {
    return this.running.size;
  }

  /** Aborts every job and waits for them to finish. */
  async close(): Promise<void> {
    this.closed = true;
    for (const controller of this.controllers) controller.abort(new Error('shutting down'));
    await Promise.allSettled([...this.running.values()]);
  }
}
