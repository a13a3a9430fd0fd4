/**
 * Runs jobs one after another (a job starts when the previous one settled, whether it succeeded or not), so the
 * registry's loads and unloads never interleave; a request can wait for the jobs under way.
 */
import { waitAtMost } from '../../core/util/wait-at-most.js';
export class JobQueue {
  private tail: Promise<void> = Promise.resolve();
  /** Jobs queued and not yet finished. */
  private pending = 0;

  /** Queue `job` after the jobs already queued; settles as the job does. */
  run<T>(job: () => Promise<T>): Promise<T> {
    this.pending++;
    const run = this.tail.then(job, job);
    const done = () => {
      this.pending--;
    };
    this.tail = run.then(done, done);
    return run;
  }

  /** Wait until the jobs queued so far have finished, at most `maxWaitMs` (at once when none is under way). */
  async idle(maxWaitMs: number): Promise<void> {
    if (this.pending === 0) return;
    await waitAtMost(this.tail, maxWaitMs);
  }
}
