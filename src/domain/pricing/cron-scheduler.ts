import cron, { type TaskOptions } from 'node-cron';

/** The part of a scheduled task the pricing service uses. */
export interface SchedulerTask {
  start(): void | Promise<void>;
  stop(): void | Promise<void>;
  destroy(): void | Promise<void>;
  getNextRun(): Date | null;
  /** The next `count` run times (node-cron v4); used to size the refresh lease to the interval. */
  getNextRuns?(count: number): Date[];
}

/** Injectable scheduler; the default is node-cron v4 (`validate`, `createTask` → a stopped task). */
export interface CronScheduler {
  validate(expression: string): boolean;
  createTask(expression: string, run: () => Promise<unknown>, options: TaskOptions): SchedulerTask;
}

/** node-cron v4 as a CronScheduler. */
export const nodeCronScheduler: CronScheduler = {
  validate: (expression) => cron.validate(expression),
  createTask: (expression, run, options) => cron.createTask(expression, () => run(), options),
};
