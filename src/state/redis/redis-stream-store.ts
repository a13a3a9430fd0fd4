import { Cluster } from 'ioredis';
import type { RedisClient } from './create-redis-client.js';
import { ClusterReplicaWait } from './cluster-replica-wait.js';
import { StateUnavailableError } from '../../core/errors/index.js';
import type { Logger } from '../../core/util/logger.js';
import { encodeJson } from '../json-value.js';
import type { RangeQuery, StreamRecord } from '../types.js';
import { journalHealth, LedgerQueue, type QueuedAppend } from '../journal/ledger-queue.js';
import type { LedgerHealth } from '../types.js';
import { USAGE_STREAM, userUsageStream, type RedisKeys } from './redis-keys.js';
import { appendScript, rangeScript, recordUsageScript } from './redis-scripts.js';
import { recordLedgerScript, recordUserCopyScript } from './cluster-scripts.js';
import { recordScopes, type UsageRecord } from '../../domain/usage/types.js';
import { periodKey } from '../../domain/usage/budget-periods.js';
import { splitCost } from '../../domain/usage/cost-parts.js';
import { utcDay } from '../../domain/usage/daily-usage.js';
import { dailyFields } from './daily-fields.js';
import { isUnavailable } from './to-state-error.js';
import { withTimeout } from './with-timeout.js';
import { errorMessage } from '../../core/util/error-message.js';

/** Runs one bounded Redis call, throwing typed errors (StateUnavailableError when unreachable). */
export type RedisCall = <T>(what: string, work: (client: RedisClient) => Promise<T>) => Promise<T>;

/** Options of a RedisStreamStore. */
export interface RedisStreamStoreOptions {
  layout: RedisKeys;
  call: RedisCall;
  isReady: () => boolean;
  logger: Logger;
  /** Redacted URL for log lines. */
  where: string;
  queueMax: number;
  /** The durable journal file for writes made while Redis is away; default in memory (lost on exit). */
  journalFile?: string;
  /** Bytes reserved on disk for the journal (LEDGER_JOURNAL_RESERVE_KB; see LedgerQueueOptions.reserveBytes). */
  journalReserveBytes?: number;
  /** How often a non-empty queue retries while connected (default 1000 ms). */
  flushRetryMs?: number;
  /**
   * Longest a write queued behind a backlog waits for the replay while Redis answers (default 2000 ms): the
   * backpressure that lets the journal drain under load. Past it the write returns accepted, journaled.
   */
  backlogWaitMs?: number;
  /**
   * Sentinel and Cluster: a ledger write counts as landed only once a replica has it (WAIT 1 for up to this many ms),
   * so a failover after a kill -9 of a primary cannot drop an answered record; unset = no wait (one node).
   */
  replicaWaitMs?: number;
}

export { USAGE_STREAM, userUsageStream };

/** How long the primary's count of connected replicas is trusted (Sentinel's WAIT after ledger writes). */
const REPLICA_CHECK_MS = 1000;

/**
 * Append-only streams on Redis (hash id→json + sorted set by time), with the
 * must-not-lose rule: an append that cannot reach Redis is written to the journal (an
 * fsync'd local SQLite file when `journalFile` is set) in order, resolves true (accepted)
 * and is replayed after reconnection, also by the next process after a crash. Replays are
 * safe because the scripts are idempotent by record id, so every accepted record lands
 * exactly once.
 */
export class RedisStreamStore {
  private readonly queue: LedgerQueue;
  private readonly retryTimer: NodeJS.Timeout;
  /** Replicas the primary had connected when last asked (Sentinel), and when that was. */
  private replicasConnected = 0;
  private replicasCheckedAt = 0;
  /** Cluster: the replica wait per written slot (made at the first write). */
  private clusterWait: ClusterReplicaWait | undefined;

  constructor(private readonly options: RedisStreamStoreOptions) {
    const { logger, where } = options;
    const retryMs = options.flushRetryMs ?? 1000;
    this.queue = new LedgerQueue({
      max: options.queueMax,
      file: options.journalFile,
      reserveBytes: options.journalReserveBytes,
      onFull: (max) =>
        logger.error(
          { backend: 'redis', queueMax: max },
          `LEDGER QUEUE FULL: ${max} ledger writes are waiting for Redis at ${where}; further spend records are being DROPPED (raise LEDGER_QUEUE_MAX or restore Redis)`,
        ),
      onDrained: (dropped) =>
        logger.error({ backend: 'redis', dropped }, `${dropped} ledger writes were dropped while the queue was full`),
      isTransient: isUnavailable,
      onHeld: (item, error) =>
        logger.error(
          {
            backend: 'redis',
            stream: item.stream,
            id: item.id,
            time: item.time,
            record: item.json,
            journal: this.queue.file,
            err: errorMessage(error),
          },
          `ledger write refused by Redis (${errorMessage(error)}); kept in the journal and retried until it lands (after 1 s, then doubling up to 60 s; the record is in this line)`,
        ),
      onReleased: (count) =>
        logger.info(
          { backend: 'redis', released: count },
          `${count} refused ledger writes were accepted by Redis on retry`,
        ),
    });
    if (this.queue.size > 0) {
      logger.warn(
        { backend: 'redis', journal: this.queue.file, queued: this.queue.size },
        `${this.queue.size} ledger writes from an earlier run are in the journal ${this.queue.file}; replaying them into Redis at ${where} in order once it answers`,
      );
    }
    this.retryTimer = setInterval(() => {
      if (this.queue.size > 0 && options.isReady()) void this.flush();
    }, retryMs);
    this.retryTimer.unref();
  }

  /** Appends accepted but not yet in Redis. */
  get queued(): number {
    return this.queue.size;
  }

  /** Records refused and the journal's reserved room, for /health. */
  get ledgerHealth(): LedgerHealth {
    return journalHealth(this.queue);
  }

  /** True when accepted writes survive a process exit while Redis is away. */
  get durable(): boolean {
    return this.queue.durable;
  }

  /** Append, or queue when Redis is unreachable (or earlier appends are still queued, to keep order). */
  async append<T extends Record<string, unknown>>(stream: string, record: StreamRecord<T>): Promise<boolean> {
    return this.write({
      stream,
      id: record.id,
      time: record.time,
      json: encodeJson(`${stream}/${record.id}`, record.data),
    });
  }

  /**
   * Record usage with its user copy and day/month spend counters in one script (or journal
   * it). True when added, or accepted into the journal (where a repeat is only detected on replay).
   */
  async record(record: UsageRecord): Promise<boolean> {
    const { hi, lo } = splitCost(record.cost);
    return this.write({
      stream: USAGE_STREAM,
      id: record.messageId,
      time: record.time,
      json: encodeJson(`${USAGE_STREAM}/${record.messageId}`, record),
      usage: {
        userId: record.userId,
        periods: [periodKey('daily', record.time), periodKey('monthly', record.time)],
        hi: String(hi),
        lo: String(lo),
      },
    });
  }

  private async write(item: QueuedAppend): Promise<boolean> {
    if (!this.options.isReady()) return this.enqueue(item);
    if (this.queue.backlog > 0) {
      // Behind a backlog while Redis answers: journal it (keeps the order), then wait for the replay (bounded). A
      // journaled write costs microseconds; returning at once would let busy writers refill the journal faster than
      // the replay empties it, and it would never drain.
      const accepted = this.enqueue(item);
      await withTimeout(this.flush(), this.options.backlogWaitMs ?? 2000, 'ledger replay').catch(() => false);
      return accepted;
    }
    try {
      const added = await this.options.call('append', (client) => this.send(client, item));
      this.queue.accepted();
      return added;
    } catch (error) {
      // It may or may not have landed; replaying is safe because appends are idempotent by id.
      if (isUnavailable(error)) return this.enqueue(item);
      // Refused on its own (a script error such as WRONGTYPE): kept and retried, never dropped once accepted.
      return this.enqueue(item, { error });
    }
  }

  /** Records in time order (ties in insertion order); `from` inclusive, `to` exclusive. */
  async range<T extends Record<string, unknown>>(stream: string, query: RangeQuery = {}): Promise<StreamRecord<T>[]> {
    const { layout } = this.options;
    const min = query.from === undefined ? '-inf' : String(query.from);
    const max = query.to === undefined ? '+inf' : `(${query.to}`;
    const flat = (await this.options.call('range', (client) =>
      rangeScript.run(client, [layout.streamHash(stream), layout.streamIndex(stream)], [min, max, query.limit ?? -1]),
    )) as string[];
    const records: StreamRecord<T>[] = [];
    for (let index = 0; index + 2 < flat.length; index += 3) {
      records.push({
        id: flat[index] as string,
        time: Number(flat[index + 1]),
        data: JSON.parse(flat[index + 2] as string) as T,
      });
    }
    return records;
  }

  /** Send queued appends now; true when none are left. */
  flush(): Promise<boolean> {
    return this.queue.flush((item) => this.options.call('append', (client) => this.send(client, item)));
  }

  /**
   * Stop retrying after one last bounded flush. What a journal file still holds stays there
   * for the next start (logged); an in-memory queue's leftovers are logged as lost.
   */
  async close(finalFlushMs: number): Promise<void> {
    clearInterval(this.retryTimer);
    if (this.queue.size > 0 && this.options.isReady()) {
      await withTimeout(this.flush(), finalFlushMs, 'final ledger flush').catch(() => false);
    }
    if (this.queue.durable) {
      if (this.queue.size > 0) {
        this.options.logger.warn(
          { backend: 'redis', journal: this.queue.file, queued: this.queue.size },
          `${this.queue.size} ledger writes could not reach Redis before shutdown; they stay in the journal ${this.queue.file} and are replayed at the next start`,
        );
      }
      this.queue.close();
      return;
    }
    const lost = this.queue.takeAll();
    if (lost.length === 0) return;
    this.options.logger.error(
      { backend: 'redis', lost: lost.length, ids: lost.slice(0, 20).map((item) => `${item.stream}/${item.id}`) },
      `${lost.length} queued ledger writes could not reach Redis before shutdown and are lost`,
    );
    this.queue.close();
  }

  private enqueue(item: QueuedAppend, failed?: { error: unknown }): boolean {
    let pushed: boolean;
    try {
      pushed = this.queue.push(item, failed);
    } catch (error) {
      throw new StateUnavailableError(
        `Ledger journal ${this.queue.file} refused record ${item.stream}/${item.id}: ${errorMessage(error)}`,
        { cause: error },
      );
    }
    if (pushed) return true;
    throw new StateUnavailableError(
      `Ledger queue full (${this.options.queueMax}); record ${item.stream}/${item.id} was not accepted`,
    );
  }

  private async send(client: RedisClient, item: QueuedAppend): Promise<boolean> {
    const added = await this.sendScripts(client, item);
    const waitMs = this.options.replicaWaitMs;
    if (waitMs === undefined) return added;
    if (client instanceof Cluster) {
      // Each slot written (the user's, then the ledger's) is confirmed on its own primary's connection.
      this.clusterWait ??= new ClusterReplicaWait(waitMs);
      const { layout } = this.options;
      if (item.usage && layout.cluster) await this.clusterWait.confirm(client, layout.spend(item.usage.userId));
      await this.clusterWait.confirm(client, layout.streamHash(item.stream));
    } else await this.confirmReplicated(client, waitMs);
    return added;
  }

  /**
   * Wait until a replica holds what this connection wrote (WAIT 1). When none acknowledged within `waitMs`, throw:
   * the caller keeps the record in the journal and replays it (idempotent, so it lands once on whichever primary
   * wins a failover). WAIT holds the connection while it waits, so it is sent only while the primary has a replica
   * connected (INFO replication, asked at most once a second): a primary with none (its only replica was promoted,
   * or is down) has nowhere to copy to, and the write stands as on one node.
   */
  private async confirmReplicated(client: RedisClient, waitMs: number): Promise<void> {
    if (Date.now() - this.replicasCheckedAt > REPLICA_CHECK_MS) {
      const replication = await client.info('replication');
      this.replicasConnected = Number(/connected_slaves:(\d+)/.exec(replication)?.[1] ?? '0');
      this.replicasCheckedAt = Date.now();
    }
    if (this.replicasConnected === 0) return;
    if ((await client.wait(1, waitMs)) >= 1) return;
    this.replicasCheckedAt = 0; // look again at the next write
    throw new Error(`no replica acknowledged the ledger write within ${waitMs} ms`);
  }

  private async sendScripts(client: RedisClient, item: QueuedAppend): Promise<boolean> {
    const { layout } = this.options;
    if (item.usage && layout.cluster) return this.sendSplit(client, item, item.usage);
    if (item.usage) {
      const user = userUsageStream(item.usage.userId);
      const keys = [
        layout.streamHash(item.stream),
        layout.streamIndex(item.stream),
        layout.streamSequence(item.stream),
        layout.streamHash(user),
        layout.streamIndex(user),
        layout.spend(item.usage.userId),
        layout.countedFrom,
        layout.day(utcDay(item.time)),
        layout.dailyFrom,
      ];
      // Computed from the record itself, so entries journaled by an older version get their aggregates too.
      const parsed = JSON.parse(item.json) as UsageRecord;
      const daily = dailyFields(parsed);
      for (const scope of recordScopes(parsed)) keys.push(layout.scopeSpend(scope));
      return (
        (await recordUsageScript.run(client, keys, [
          item.id,
          item.time,
          item.json,
          item.usage.hi,
          item.usage.lo,
          item.usage.periods.length,
          ...item.usage.periods,
          ...daily,
        ])) === 1
      );
    }
    const keys = [layout.streamHash(item.stream), layout.streamIndex(item.stream), layout.streamSequence(item.stream)];
    return (await appendScript.run(client, keys, [item.id, item.time, item.json])) === 1;
  }

  /**
   * A usage record on a Cluster, where the global ledger and the user's keys live in different slots: the user's
   * copy with its spend counters (one script in the user's slot), then the global record with the daily aggregates
   * (one script in the ledger's slot). Each is idempotent by record id, so a write cut between the two is completed
   * by the journal's replay, and each part lands exactly once.
   */
  private async sendSplit(client: RedisClient, item: QueuedAppend, usage: NonNullable<QueuedAppend['usage']>) {
    const { layout } = this.options;
    const user = userUsageStream(usage.userId);
    await recordUserCopyScript.run(
      client,
      [layout.streamHash(user), layout.streamIndex(user), layout.streamSequence(user), layout.spend(usage.userId)],
      [item.id, item.time, item.json, usage.hi, usage.lo, ...usage.periods],
    );
    const parsed = JSON.parse(item.json) as UsageRecord;
    const daily = dailyFields(parsed);
    const keys = [
      layout.streamHash(item.stream),
      layout.streamIndex(item.stream),
      layout.streamSequence(item.stream),
      layout.day(utcDay(item.time)),
      ...recordScopes(parsed).map((scope) => layout.scopeSpend(scope)),
    ];
    const args = [item.id, item.time, item.json, usage.hi, usage.lo, usage.periods.length, ...usage.periods, ...daily];
    return (await recordLedgerScript.run(client, keys, args)) === 1;
  }
}
