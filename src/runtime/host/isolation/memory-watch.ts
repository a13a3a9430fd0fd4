import { HEARTBEAT_HELD, HEARTBEAT_TIME } from './memory-guard.js';

/** How often the host looks while calls are in flight, and how long a worker may go unheard. */
export const WATCH_MS = 25;
export const SILENT_MS = 100;
/**
 * Growth allowed beyond the limit: memory a worker commits without holding it past its heap limit
 * (V8's young generation, code, heap pages not yet returned after a collection).
 */
export const GROWTH_MARGIN_BYTES = 64 * 1024 * 1024;

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
 * SILENT_MS while the process grew by more than the whole limit (plus GROWTH_MARGIN_BYTES) since it
 * was last heard is over it (its threads are the ones running; the others answer their own samples).
 */
export class MemoryWatch {
  private timer?: NodeJS.Timeout;
  private heartbeat?: Float64Array;
  private heardAt = 0;
  /** The process RSS when the worker was last heard (read at the first look, not on the call's path). */
  private rssWhenHeard?: number;

  constructor(
    private readonly limitBytes: number,
    /** Whether calls are in flight: the watch stops itself at its first look without any. */
    private readonly busy: () => boolean,
    private readonly onExceeded: (growth: SilentGrowth) => void,
  ) {}

  /** Watch the worker whose heartbeat is `heartbeat` while calls are in flight. */
  start(heartbeat: Float64Array): void {
    if (this.timer && this.heartbeat === heartbeat) return;
    this.stop();
    this.heartbeat = heartbeat;
    this.heardAt = Date.now();
    this.rssWhenHeard = undefined;
    this.timer = setInterval(() => this.look(heartbeat), WATCH_MS).unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.heartbeat = undefined;
  }

  private look(heartbeat: Float64Array): void {
    if (!this.busy()) {
      this.stop();
      return;
    }
    const now = Date.now();
    const rss = process.memoryUsage.rss();
    const beat = heartbeat[HEARTBEAT_TIME]!;
    if (this.rssWhenHeard === undefined || beat > this.heardAt) {
      this.heardAt = Math.max(beat, this.heardAt);
      this.rssWhenHeard = rss;
      return;
    }
    const silentMs = now - this.heardAt;
    const grownBytes = rss - this.rssWhenHeard;
    if (silentMs > SILENT_MS && grownBytes > this.limitBytes + GROWTH_MARGIN_BYTES) {
      this.stop();
      this.onExceeded({ heldBytes: heartbeat[HEARTBEAT_HELD]!, grownBytes, silentMs });
    }
  }
}
