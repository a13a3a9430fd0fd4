import type { Decimal } from '../../domain/pricing/decimal.js';
import { monthPace, paceWindow, type MonthPace } from '../../domain/usage/month-pace.js';
import {
  alertKey,
  alertPayload,
  paceCalls,
  standingEvents,
  type AlertEvent,
  type AlertUser,
  type CapScope,
  type CapStanding,
} from '../../domain/usage/spend-alerts.js';
import type { Logger } from '../../core/util/logger.js';
import { loadUndici } from '../../core/util/load-undici.js';
import { timeoutSignal } from '../../core/util/timeout-signal.js';
import { errorMessage } from '../../core/util/error-message.js';
import type { StateStore } from '../../state/types.js';
import { waitAtMost } from '../../core/util/wait-at-most.js';

/** How alerts are delivered (tests shorten the delays). */
export interface SpendAlertOptions {
  /** Waits before the 2nd, 3rd, … attempt (default 1 s, 3 s, 9 s: four attempts, under a minute in all). */
  retryDelaysMs?: readonly number[];
  /** Whole-attempt timeout (connect, answer) in ms (default 5 s). */
  timeoutMs?: number;
  /** Least time between two pace readings of one cap on this replica (default 5 minutes). */
  paceEveryMs?: number;
  /** Alert jobs (claim, pace, delivery) running at once (default 4); more wait in a queue of `maxQueued`. */
  concurrency?: number;
  maxQueued?: number;
}

/** One inlet's observation: the caps' standings after it, and where to post. */
export interface AlertObservation {
  url: string;
  on: readonly AlertEvent[];
  user: AlertUser;
  standings: readonly CapStanding[];
  at: number;
  /** Where crossings are claimed (set-if-absent with a TTL to the period's end): shared by the replicas. */
  state: Pick<StateStore, 'compareAndSet'>;
  logger: Logger;
  /** The spend of `scope` over the UTC days `days` (the pace's recent window); undefined when it cannot be read. */
  recentSpend(scope: CapScope, days: readonly string[]): Promise<Decimal | undefined>;
}

/** Most claimed keys kept in memory (a crossing seen here is not claimed again in the store). */
const MAX_SEEN = 10_000;

/**
 * The webhook alerts of the spend-limit filter. `observe` is called by the inlet and returns at once: the work (the
 * claim in the state store, the pace, the POST and its retries) runs in the background, at most `concurrency` jobs
 * at a time, never on the request's path. A crossing is posted by the replica whose set-if-absent of its key
 * (alertKey, TTL to the period's end) succeeds, so once per period across replicas; a key this replica saw claimed is
 * remembered until the period ends, so a user past a line costs no store call per request. An alert whose every
 * attempt failed is logged once and not sent again that period.
 */
export class SpendAlerts {
  private readonly delays: readonly number[];
  private readonly timeoutMs: number;
  private readonly paceEveryMs: number;
  private readonly concurrency: number;
  private readonly maxQueued: number;
  /** Claimed (or being claimed) keys → when their period ends. */
  private readonly seen = new Map<string, number>();
  /** Caps whose pace was read → when. */
  private readonly paced = new Map<string, number>();
  private readonly queue: Array<() => Promise<void>> = [];
  private readonly running = new Set<Promise<void>>();
  private dropped = 0;

  constructor(options: SpendAlertOptions = {}) {
    this.delays = options.retryDelaysMs ?? [1000, 3000, 9000];
    this.timeoutMs = options.timeoutMs ?? 5000;
    this.paceEveryMs = options.paceEveryMs ?? 5 * 60 * 1000;
    this.concurrency = options.concurrency ?? 4;
    this.maxQueued = options.maxQueued ?? 500;
  }

  /** Queue what the standings call for; returns at once and never throws. */
  observe(observation: AlertObservation): void {
    if (!observation.url || observation.on.length === 0) return;
    const { on, at } = observation;
    this.forget(at);
    for (const standing of observation.standings) {
      for (const event of standingEvents(standing))
        if (on.includes(event)) this.fire(event, standing, observation, false);
      if (on.includes('projected_over_cap') && paceCalls(standing)) {
        const key = alertKey('projected_over_cap', standing);
        if (this.seen.has(key) || at - (this.paced.get(key) ?? Number.NEGATIVE_INFINITY) < this.paceEveryMs) continue;
        this.paced.set(key, at);
        this.fire('projected_over_cap', standing, observation, true);
      }
    }
  }

  /** Resolves when every queued and running job has ended (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.running.size > 0 || this.queue.length > 0) await Promise.allSettled([...this.running]);
  }

  /** Waits for the queue to empty, at most `ms` (the filter's shutdown: alerts still queued after it are not sent). */
  async drain(ms: number): Promise<void> {
    await waitAtMost(this.settled(), ms);
  }

  private fire(event: AlertEvent, standing: CapStanding, observation: AlertObservation, onlyIfPassing: boolean): void {
    const key = alertKey(event, standing);
    if (this.seen.has(key)) return;
    if (!onlyIfPassing) this.seen.set(key, standing.period.to);
    this.enqueue(observation.logger, async () => {
      const pace = standing.period.kind === 'monthly' ? await this.pace(standing, observation) : undefined;
      if (onlyIfPassing && !pace?.passes) return;
      this.seen.set(key, standing.period.to);
      const { at, logger } = observation;
      let claimed: boolean;
      try {
        claimed = await observation.state.compareAndSet(key, undefined, new Date(at).toISOString(), {
          ttlMs: Math.max(1000, standing.period.to - at),
        });
      } catch (error) {
        // The store cannot say whether another replica posted it: try again on a later request.
        this.seen.delete(key);
        logger.debug({ err: errorMessage(error), event }, 'spend-limit: alert not claimed (state store unavailable)');
        return;
      }
      if (!claimed) return;
      const payload = alertPayload({ event, standing, user: observation.user, at, pace });
      await this.deliver(observation.url, payload, logger);
    });
  }

  /** The month's pace of a monthly standing (undefined when its recent spend cannot be read). */
  private async pace(standing: CapStanding, observation: AlertObservation): Promise<MonthPace | undefined> {
    const window = paceWindow(observation.at);
    let recent: Decimal | undefined;
    if (window.method === 'recent') {
      try {
        recent = await observation.recentSpend(standing.scope, window.days);
      } catch (error) {
        observation.logger.debug({ err: errorMessage(error) }, 'spend-limit: recent spend unreadable; no pace');
      }
      if (recent === undefined) return undefined;
    }
    return monthPace({ now: observation.at, spent: standing.spent, recentSpend: recent, limit: standing.limit });
  }

  /** POST the payload; retry network errors, timeouts, 429 and 5xx after each delay; one log line when all fail. */
  private async deliver(url: string, payload: ReturnType<typeof alertPayload>, logger: Logger): Promise<void> {
    const { request } = await loadUndici();
    const body = JSON.stringify(payload);
    const attempts = this.delays.length + 1;
    let reason = '';
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const timer = timeoutSignal(this.timeoutMs);
      let retry = true;
      try {
        const response = await request(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'eunoe-alerts' },
          body,
          signal: timer.signal,
        });
        await response.body.dump().catch(() => undefined);
        if (response.statusCode >= 200 && response.statusCode < 300) return;
        reason = `HTTP ${response.statusCode}`;
        retry = response.statusCode === 429 || response.statusCode >= 500;
      } catch (error) {
        reason = timer.timedOut ? `no answer in ${this.timeoutMs} ms` : errorMessage(error);
      } finally {
        timer.clear();
      }
      if (!retry || attempt === attempts) {
        logger.warn(
          {
            event: payload.event,
            scope: `${payload.scope.kind}:${payload.scope.id}`,
            period: payload.cap.period_key,
            attempts: attempt,
            err: reason,
          },
          `spend-limit: alert webhook ${originOf(url)} failed (${reason}) after ${attempt} attempt(s); this ${payload.event} alert is not sent again this period`,
        );
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, this.delays[attempt - 1]));
    }
  }

  private enqueue(logger: Logger, job: () => Promise<void>): void {
    if (this.queue.length >= this.maxQueued) {
      this.dropped += 1;
      if (this.dropped === 1)
        logger.warn(
          { queued: this.queue.length },
          'spend-limit: alert queue full (the webhook is slow or down); alerts are dropped until it drains',
        );
      return;
    }
    this.queue.push(job);
    this.pump();
  }

  private pump(): void {
    while (this.running.size < this.concurrency && this.queue.length > 0) {
      const job = this.queue.shift()!;
      const run: Promise<void> = job()
        .catch(() => undefined)
        .finally(() => {
          this.running.delete(run);
          if (this.queue.length === 0) this.dropped = 0;
          this.pump();
        });
      this.running.add(run);
    }
  }

  /** Drop what belongs to ended periods, and bound the memory. */
  private forget(now: number): void {
    if (this.seen.size < MAX_SEEN && this.paced.size < MAX_SEEN) return;
    for (const [key, until] of this.seen) if (until <= now) this.seen.delete(key);
    for (const [key, when] of this.paced) if (now - when >= this.paceEveryMs) this.paced.delete(key);
    if (this.seen.size >= MAX_SEEN) this.seen.clear(); // the store's keys still hold the dedupe
    if (this.paced.size >= MAX_SEEN) this.paced.clear();
  }
}

/** `https://hooks.example.com` of a webhook URL: its path and query may hold a secret, so logs name the origin only. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'URL';
  }
}

/** True for an `http:` or `https:` URL with a host (the `alert_webhook_url` valve's rule). */
export function isWebhookUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}
