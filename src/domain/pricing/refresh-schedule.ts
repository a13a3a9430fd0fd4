import type { Logger } from '../../core/util/logger.js';
import { ConfigError } from '../../core/errors/index.js';
import type { CronScheduler, SchedulerTask } from './cron-scheduler.js';

/** The cron schedule of pricing refreshes (PRICING_CRON, UTC, no overlap). Owns the scheduled task. */
export class RefreshSchedule {
  private task: SchedulerTask | undefined;

  constructor(
    private readonly scheduler: CronScheduler,
    private readonly expression: string,
    private readonly logger: Logger,
  ) {}

  /** Throw a ConfigError unless the expression is a valid cron expression. */
  validate(): void {
    if (!this.scheduler.validate(this.expression)) {
      throw new ConfigError(`PRICING_CRON: "${this.expression}" is not a valid cron expression (e.g. "17 */6 * * *")`);
    }
  }

  /** Create and start the task running `run` on every tick. */
  async start(run: () => Promise<unknown>): Promise<void> {
    const logger = this.logger;
    const cronLogger = {
      info: (message: string) => logger.debug(`node-cron: ${message}`),
      warn: (message: string) => logger.debug(`node-cron: ${message}`),
      error: (message: string | Error) => logger.warn(`node-cron: ${String(message)}`),
      debug: (message: string | Error) => logger.debug(`node-cron: ${String(message)}`),
    };
    this.task = this.scheduler.createTask(this.expression, run, {
      name: 'eunoe-pricing',
      timezone: 'UTC',
      noOverlap: true,
      logger: cronLogger,
    });
    await this.task.start();
  }

  async stop(): Promise<void> {
    if (!this.task) return;
    await this.task.stop();
    await this.task.destroy();
  }

  /** The next run, or null when not scheduled. */
  nextRun(): Date | null {
    return this.task?.getNextRun() ?? null;
  }

  /** Lease length: `explicitMs`, else half the cron interval, between 30 s and 10 min (one refresh per interval). */
  leaseMs(explicitMs?: number): number {
    if (explicitMs) return explicitMs;
    const [first, second] = this.task?.getNextRuns?.(2) ?? [];
    const interval = first && second ? second.getTime() - first.getTime() : 20 * 60_000;
    return Math.min(10 * 60_000, Math.max(30_000, Math.floor(interval / 2)));
  }
}
