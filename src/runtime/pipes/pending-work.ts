import type { Logger } from '../../core/util/logger.js';

/**
 * Work a request leaves running after its answer went out (the proxy's ledger write after
 * `[DONE]`): kept here so that shutdown waits for it, with a time limit, before the store closes.
 */
export class PendingWork {
  private readonly running = new Set<Promise<unknown>>();

  /** How many are still running. */
  get size(): number {
    return this.running.size;
  }

  /** Keep `work` until it settles (its failure is its owner's to handle; here it is only waited for). */
  track<T>(work: Promise<T>): Promise<T> {
    const kept = work.then(
      () => undefined,
      () => undefined,
    );
    this.running.add(kept);
    void kept.then(() => this.running.delete(kept));
    return work;
  }

  /**
   * Wait until everything tracked (including what is tracked meanwhile) has settled, at most
   * `timeoutMs`; what is still running then is logged and left behind.
   */
  async settle(timeoutMs: number, logger?: Logger): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.running.size) {
      const left = deadline - Date.now();
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), Math.max(0, left));
      });
      const outcome = await Promise.race([Promise.all(this.running), late]);
      clearTimeout(timer);
      if (outcome === 'late') {
        logger?.warn({ pending: this.running.size, timeoutMs }, 'shutdown: work still running after the time limit');
        return;
      }
    }
  }
}
