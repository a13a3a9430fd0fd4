import { HEARTBEAT_HELD, HEARTBEAT_TIME } from './memory-guard.js';

/** How often the host looks while calls are in flight, and how long a worker may go unheard. */
export const WATCH_MS = 25;
export const SILENT_MS = 100;

/** Why the host judged a silent worker over its limit (for the log line). */
export interface SilentGrowth {
  /** The worker's own last figure (heap + outside it). */
  heldBytes: number;
  /** How much the whole process grew since the worker was last heard. */
  grownBytes: number;
  silentMs: number;
}

/**
 * The host's half of a worker's memory limit. A worker samples itself (memory-guard.ts), but not
 * while its event loop is blocked (a synchronous loop filling Buffers). While its calls are in
 * flight the host reads the worker's heartbeat and the process RSS: a worker unheard for more than
 * SILENT_MS while the process grew by more than the whole limit since it was last heard is over
 * it (its threads are the ones running; the others answer their own samples).
 */
export class MemoryWatch {
  private timer?: NodeJS.Timeout;
  private heardAt = 0;
  private rssWhenHeard = 0;

  constructor(
    private readonly limitBytes: number,
    private readonly onExceeded: (growth: SilentGrowth) => void,
  ) {}

  /** Watch the worker whose heartbeat is `heartbeat` (until stop). */
  start(heartbeat: Float64Array): void {
    if (this.timer) return;
    this.heardAt = Date.now();
    this.rssWhenHeard = process.memoryUsage.rss();
    this.timer = setInterval(() => this.look(heartbeat), WATCH_MS).unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private look(heartbeat: Float64Array): void {
    const now = Date.now();
    const rss = process.memoryUsage.rss();
    const beat = heartbeat[HEARTBEAT_TIME]!;
    if (beat > this.heardAt) {
      this.heardAt = beat;
      this.rssWhenHeard = rss;
      return;
    }
    const silentMs = now - this.heardAt;
    const grownBytes = rss - this.rssWhenHeard;
    if (silentMs > SILENT_MS && grownBytes > this.limitBytes) {
      this.stop();
      this.onExceeded({ heldBytes: heartbeat[HEARTBEAT_HELD]!, grownBytes, silentMs });
    }
  }
}
