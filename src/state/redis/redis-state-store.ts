import { backfillDailyAggregates } from './backfill-daily-aggregates.js';
import { randomUUID } from 'node:crypto';
import { Cluster } from 'ioredis';
import { StateUnavailableError } from '../../core/errors/index.js';
import type { Logger } from '../../core/util/logger.js';
import { decodeJson, encodeJson, storedEquals } from '../json-value.js';
import type {
  Lease,
  ListPush,
  ListPushOptions,
  RangeQuery,
  SetOptions,
  StateStore,
  StoreHealth,
  StreamRecord,
  TopologyHealth,
  WindowAdmission,
  WindowAdmitOptions,
} from '../types.js';
import { windowBounds } from '../sliding-window.js';
import {
  createRedisClient,
  reconnectWhenEnded,
  type RedisClient,
  type RedisClientOptions,
} from './create-redis-client.js';
import { connectionRefusal } from './connection-refusal.js';
import { OutageMonitor } from './outage-monitor.js';
import { StoreOutageLog } from '../../core/util/store-outage.js';
import { redisKeys, type RedisKeys } from './redis-keys.js';
import { describeTopology, type RedisTopology } from './redis-topology.js';
import {
  compareAndSetScript,
  incrementScript,
  listPushManyScript,
  listPushScript,
  releaseLeaseScript,
  windowAdmitScript,
} from './redis-scripts.js';
import { RedisStreamStore } from './redis-stream-store.js';
import { RedisUsageStore } from './redis-usage-store.js';
import { backfillSpendCounters } from './backfill-spend-counters.js';
import { RedisSubscriptions } from './redis-subscriptions.js';
import { toStateError } from './to-state-error.js';
import { withTimeout } from './with-timeout.js';
import { journalReasons } from '../journal/ledger-queue.js';
import { errorMessage } from '../../core/util/error-message.js';

/** Options of the Redis backend. */
export interface RedisStateStoreOptions extends RedisClientOptions {
  /** One node by URL; or give `topology` (Sentinel, Cluster) instead. */
  url?: string;
  topology?: RedisTopology;
  /** Key prefix of this deployment (REDIS_PREFIX), e.g. `eunoe:`. */
  prefix: string;
  logger: Logger;
  /** This store's outage log (default: one of its own; see StoreOutageLog). */
  outage?: StoreOutageLog;
  /** Bound of every call in ms (STATE_TIMEOUT_MS). */
  timeoutMs: number;
  /** Most ledger appends held while Redis is away (LEDGER_QUEUE_MAX). */
  queueMax: number;
  /** How often a non-empty ledger queue retries while connected (default 1000 ms). */
  flushRetryMs?: number;
  /** Durable journal (SQLite file) for ledger writes made while Redis is away; default in memory. */
  journalFile?: string;
  /** Bytes reserved on disk for the journal (LEDGER_JOURNAL_RESERVE_KB). */
  journalReserveBytes?: number;
}

/**
 * The Redis backend for several replicas. Every call is bounded by `timeoutMs` and fails
 * fast with StateUnavailableError while disconnected; ledger appends are queued in order
 * instead and flushed after reconnection (idempotent by record id, so exactly once).
 */
export class RedisStateStore implements StateStore {
  readonly backend = 'redis' as const;
  readonly client: RedisClient;
  readonly usage: RedisUsageStore;
  /** This store's outages; the StateUnavailableErrors it raises are claimed by it. */
  readonly outage: StoreOutageLog;
  private readonly layout: RedisKeys;
  private readonly streams: RedisStreamStore;
  private readonly monitor: OutageMonitor;
  private readonly subscriptions: RedisSubscriptions;
  private readonly where: string;
  /** How this store reaches Redis (one node, Sentinel, Cluster). */
  readonly topology: RedisTopology;
  private closed = false;
  private backfill: Promise<number | undefined> | undefined;
  /** When a call last got an answer, and when one last ran out of time (a hung Redis keeps its connection 'ready'). */
  private lastAnswerAt = 0;
  private lastTimeoutAt = 0;
  private lastTimeout = '';
  private lastRefusal: string | undefined;

  constructor(private readonly options: RedisStateStoreOptions) {
    const { logger } = options;
    const topology = options.topology ?? (options.url ? { kind: 'single' as const, url: options.url } : undefined);
    if (!topology) throw new Error('RedisStateStore needs a url or a topology');
    this.topology = topology;
    this.where = describeTopology(topology);
    this.outage = options.outage ?? new StoreOutageLog();
    this.outage.useLogger(logger);
    this.layout = redisKeys(options.prefix, { cluster: topology.kind === 'cluster' });
    this.client = createRedisClient(topology, options);
    reconnectWhenEnded(this.client, () => this.closed, options.maxRetryDelayMs);
    this.client.on('error', (error: Error) => {
      this.lastRefusal = connectionRefusal(error);
    });
    this.client.on('ready', () => {
      this.lastRefusal = undefined;
    });
    this.streams = new RedisStreamStore({
      layout: this.layout,
      call: (what, work) => this.call(what, work),
      isReady: () => this.client.status === 'ready',
      logger,
      where: this.where,
      queueMax: options.queueMax,
      flushRetryMs: options.flushRetryMs,
      backlogWaitMs: Math.max(options.timeoutMs, 100),
      journalFile: options.journalFile,
      journalReserveBytes: options.journalReserveBytes,
      // Half the call's bound, so the WAIT answers (with a count) before the call times out.
      ...(topology.kind !== 'single' ? { replicaWaitMs: Math.max(10, Math.floor(options.timeoutMs / 2)) } : {}),
    });
    this.usage = new RedisUsageStore(this.streams, (what, work) => this.call(what, work), this.layout);
    this.monitor = new OutageMonitor({
      client: this.client,
      logger,
      outage: this.outage,
      where: this.where,
      queueMax: options.queueMax,
      journal: options.journalFile
        ? `the journal ${options.journalFile}`
        : 'memory (no journal file: lost if the process exits)',
      queued: () => this.streams.queued,
      onReady: () => {
        void this.streams.flush();
        void this.backfillCounters();
      },
    });
    this.subscriptions = new RedisSubscriptions(() => {
      const subscriber = createRedisClient(topology, { ...options, subscriber: true });
      reconnectWhenEnded(subscriber, () => this.closed, options.maxRetryDelayMs);
      return subscriber;
    }, logger);
  }

  /** Why the last connection attempt was refused (credentials, certificate), until a connection succeeds. */
  get refusal(): string | undefined {
    return this.lastRefusal;
  }

  /**
   * Resolve true once connected, false after `waitMs` (logging the outage once) or as soon as Redis refuses the
   * credentials or the certificate (then `refusal` says why); never rejects.
   */
  async waitUntilReady(waitMs: number): Promise<boolean> {
    if (this.client.status === 'ready') return true;
    const ready = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => finish(false), waitMs);
      const onReady = () => finish(true);
      const onError = (error: Error) => {
        if (connectionRefusal(error)) finish(false);
      };
      const finish = (value: boolean) => {
        clearTimeout(timer);
        this.client.off('ready', onReady);
        this.client.off('error', onError);
        resolve(value);
      };
      this.client.on('ready', onReady);
      this.client.on('error', onError);
    });
    if (!ready) this.monitor.markDown(`no connection within ${waitMs} ms at start-up`);
    return ready;
  }

  async get<T = unknown>(key: string): Promise<T | undefined> {
    return decodeJson<T>(await this.call('get', (client) => client.get(this.layout.document(key))));
  }

  async getMany<T = unknown>(keys: readonly string[]): Promise<(T | undefined)[]> {
    if (keys.length === 0) return [];
    const full = keys.map((key) => this.layout.document(key));
    // On a Cluster one MGET must stay in one slot: a GET per key instead (auto-pipelined per node, one round trip).
    const values = await this.call('getMany', (client) =>
      client instanceof Cluster ? Promise.all(full.map((key) => client.get(key))) : client.mget(full),
    );
    return values.map((value) => decodeJson<T>(value));
  }

  async set(key: string, value: unknown, options?: SetOptions): Promise<void> {
    const text = encodeJson(key, value);
    const full = this.layout.document(key);
    const ttl = options?.ttlMs ?? 0;
    await this.call('set', (client) => (ttl > 0 ? client.set(full, text, 'PX', ttl) : client.set(full, text)));
  }

  async setMany(entries: readonly { key: string; value: unknown; ttlMs?: number }[]): Promise<void> {
    if (entries.length === 0) return;
    const rows = entries.map(
      (entry) => [this.layout.document(entry.key), encodeJson(entry.key, entry.value), entry.ttlMs ?? 0] as const,
    );
    await this.call('setMany', async (client) => {
      if (client instanceof Cluster) {
        // A transaction cannot span slots: one SET per document (each atomic; a failure leaves the others written).
        await Promise.all(
          rows.map(([full, text, ttl]) => (ttl > 0 ? client.set(full, text, 'PX', ttl) : client.set(full, text))),
        );
        return;
      }
      const transaction = client.multi();
      for (const [full, text, ttl] of rows) {
        if (ttl > 0) transaction.set(full, text, 'PX', ttl);
        else transaction.set(full, text);
      }
      const results = await transaction.exec();
      const failed = results?.find(([error]) => error);
      if (!results || failed) throw failed?.[0] ?? new Error('transaction aborted');
    });
  }

  async delete(key: string): Promise<boolean> {
    return (await this.call('delete', (client) => client.del(this.layout.document(key)))) > 0;
  }

  async deleteMany(keys: readonly string[]): Promise<number> {
    if (keys.length === 0) return 0;
    const fullKeys = keys.map((key) => this.layout.document(key));
    // On a Cluster one DEL may only name keys of one slot: one DEL per key there (pipelined by the client).
    if (this.client instanceof Cluster)
      return this.call('deleteMany', async (client) =>
        (await Promise.all(fullKeys.map((key) => client.del(key)))).reduce((sum, deleted) => sum + deleted, 0),
      );
    return this.call('deleteMany', (client) => client.del(...fullKeys));
  }

  async keys(prefix: string): Promise<string[]> {
    const found = new Set<string>();
    // SCAN reaches one node: on a Cluster every primary is walked (each page its own bounded call).
    const nodes = this.client instanceof Cluster ? this.client.nodes('master') : [this.client];
    for (const node of nodes) {
      let cursor = '0';
      do {
        const [next, batch] = await this.call('keys', () =>
          node.scan(cursor, 'MATCH', this.layout.documentPattern(prefix), 'COUNT', 1000),
        );
        cursor = next;
        for (const full of batch) found.add(this.layout.documentKey(full));
      } while (cursor !== '0');
    }
    return [...found].sort();
  }

  async compareAndSet(key: string, expected: unknown, next: unknown, options?: SetOptions): Promise<boolean> {
    const text = encodeJson(key, next);
    const full = this.layout.document(key);
    const ttl = options?.ttlMs ?? 0;
    let expectedText = expected === undefined ? '' : encodeJson(key, expected);
    // Retried at most once: when the stored JSON equals `expected` but is spelled differently (key order).
    for (let attempt = 0; attempt < 2; attempt++) {
      const mode = expected === undefined ? 'absent' : 'value';
      const reply = (await this.call('compareAndSet', (client) =>
        compareAndSetScript.run(client, [full], [mode, expectedText, text, ttl]),
      )) as [number, string?];
      if (reply[0] === 1) return true;
      const current = reply[1];
      if (current === undefined || current === expectedText || !storedEquals(current, expected)) return false;
      expectedText = current;
    }
    return false;
  }

  async listPush(key: string, item: string, options: ListPushOptions): Promise<string[]> {
    const max = Math.max(1, Math.floor(options.max));
    const reply = await this.call('listPush', (client) =>
      listPushScript.run(client, [this.layout.list(key)], [item, max, options.ttlMs ?? 0]),
    );
    return (reply as string[]) ?? [];
  }

  async listPushMany(pushes: readonly ListPush[]): Promise<string[][]> {
    if (pushes.length === 0) return [];
    // One script names keys of one slot on a Cluster: there, each list's pushes are one script (atomic per list).
    const groups = new Map<string, number[]>();
    pushes.forEach((push, index) => {
      const group = this.client instanceof Cluster ? push.key : '';
      groups.set(group, [...(groups.get(group) ?? []), index]);
    });
    const evicted: string[][] = pushes.map(() => []);
    await Promise.all(
      [...groups.values()].map(async (indexes) => {
        const batch = indexes.map((index) => pushes[index]!);
        const keys = batch.map((push) => this.layout.list(push.key));
        const args = batch.flatMap((push) => [
          push.item,
          Math.max(1, Math.floor(push.options.max)),
          push.options.ttlMs ?? 0,
        ]);
        const reply = (await this.call('listPushMany', (client) => listPushManyScript.run(client, keys, args))) as
          | string[][]
          | null;
        indexes.forEach((index, position) => {
          evicted[index] = reply?.[position] ?? [];
        });
      }),
    );
    return evicted;
  }

  async listRange(key: string, limit?: number): Promise<string[]> {
    const stop = limit === undefined ? -1 : Math.max(0, Math.floor(limit)) - 1;
    if (stop < -1 || limit === 0) return [];
    return this.call('listRange', (client) => client.lrange(this.layout.list(key), 0, stop));
  }

  async windowAdmit(key: string, options: WindowAdmitOptions): Promise<WindowAdmission> {
    const { limit, windowMs, now } = windowBounds(options);
    const reply = (await this.call('windowAdmit', (client) =>
      windowAdmitScript.run(client, [this.layout.window(key)], [now, windowMs, limit, `${now}:${randomUUID()}`]),
    )) as [number, number | string];
    return reply[0] === 1
      ? { admitted: true, count: Number(reply[1]) }
      : { admitted: false, retryAt: Number(reply[1]) };
  }

  async increment(key: string, by = 1, options?: SetOptions): Promise<number> {
    const reply = await this.call('increment', (client) =>
      incrementScript.run(client, [this.layout.document(key)], [String(by), options?.ttlMs ?? 0]),
    );
    return Number(reply);
  }

  async append<T extends Record<string, unknown>>(stream: string, record: StreamRecord<T>): Promise<boolean> {
    if (this.closed) throw this.outage.claim(new StateUnavailableError('State store is closed'));
    return this.streams.append(stream, record);
  }

  async range<T extends Record<string, unknown>>(stream: string, query?: RangeQuery): Promise<StreamRecord<T>[]> {
    return this.streams.range<T>(stream, query);
  }

  async acquireLease(name: string, ttlMs: number): Promise<Lease | undefined> {
    const token = randomUUID();
    const full = this.layout.lease(name);
    const reply = await this.call('acquireLease', (client) => client.set(full, token, 'PX', ttlMs, 'NX'));
    if (reply !== 'OK') return undefined;
    return {
      name,
      token,
      release: async () => {
        await this.call('releaseLease', (client) => releaseLeaseScript.run(client, [full], [token]));
      },
    };
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.call('publish', (client) => client.publish(this.layout.channel(channel), message));
  }

  subscribe(channel: string, handler: (message: string) => void): () => void {
    if (this.closed) throw this.outage.claim(new StateUnavailableError('State store is closed'));
    return this.subscriptions.subscribe(this.layout.channel(channel), handler);
  }

  health(): StoreHealth {
    const queued = this.streams.queued;
    const hanging = this.lastTimeoutAt > this.lastAnswerAt;
    const ledger = this.streams.ledgerHealth;
    const ok = !this.closed && this.client.status === 'ready' && !hanging && queued === 0 && !ledger.refusing;
    const reasons = [
      ...(hanging ? [`not answering (${this.lastTimeout})`] : []),
      ...(queued > 0 ? [`${queued} ledger writes wait in the journal`] : []),
      ...journalReasons(ledger),
    ];
    return {
      backend: 'redis',
      ok,
      detail: `${this.where} ${this.closed ? 'closed' : this.client.status}${reasons.length > 0 ? `; ${reasons.join('; ')}` : ''}`,
      queued,
      ledger,
      topology: this.describeTopology(),
    };
  }

  /** What /health and /readyz say of the topology: the kind, the primary now in use, the primaries of a Cluster. */
  private describeTopology(): TopologyHealth {
    const client = this.client;
    if (client instanceof Cluster) return { kind: 'cluster', primaries: client.nodes('master').length };
    if (this.topology.kind !== 'sentinel') return { kind: this.topology.kind };
    const socket = client.stream;
    const primary = socket?.remoteAddress ? `${socket.remoteAddress}:${socket.remotePort}` : undefined;
    return { kind: 'sentinel', ...(primary && client.status === 'ready' ? { primary } : {}) };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.streams.close(this.options.timeoutMs * 4);
    this.closed = true;
    this.monitor.stop();
    this.outage.reset();
    this.subscriptions.close();
    await withTimeout(this.client.quit(), this.options.timeoutMs, 'quit').catch(() => {});
    // After a QUIT the server closes the connection, and ioredis never tells its connector: behind Sentinel the
    // failover detector's connections to every sentinel would stay open. disconnect() closes them (and the connection,
    // when QUIT did not answer in time).
    this.client.disconnect();
  }

  /**
   * Once per process, give ledger records from before spend counters (and daily aggregates) their
   * counters (see backfillSpendCounters, backfillDailyAggregates); retried on the next reconnection if it fails.
   */
  backfillCounters(): Promise<number | undefined> {
    // A Cluster's keys have hash tags no earlier version wrote: there is nothing older to backfill.
    if (this.layout.cluster) return Promise.resolve(undefined);
    const options = {
      call: <T>(what: string, work: (client: RedisClient) => Promise<T>) => this.call(what, work),
      layout: this.layout,
      logger: this.options.logger,
      acquireLease: (name: string, ttlMs: number) => this.acquireLease(name, ttlMs),
    };
    this.backfill ??= backfillSpendCounters(options)
      .then(async (counted) => {
        await backfillDailyAggregates(options); // the dashboard's daily aggregates, likewise once
        return counted;
      })
      .catch((error: unknown) => {
        this.backfill = undefined;
        this.options.logger.warn(
          { backend: 'redis', err: errorMessage(error) },
          'spend counter or daily aggregate backfill failed; retried after the next reconnection',
        );
        return undefined;
      });
    return this.backfill;
  }

  /** Send queued ledger appends now; true when none are left. */
  flushQueue(): Promise<boolean> {
    return this.streams.flush();
  }

  /** Run one bounded Redis call; failures become typed errors. */
  private async call<T>(what: string, work: (client: RedisClient) => Promise<T>): Promise<T> {
    if (this.closed) throw this.outage.claim(new StateUnavailableError('State store is closed'));
    if (this.client.status !== 'ready') {
      this.outage.failed();
      throw this.outage.claim(
        new StateUnavailableError(
          `Redis at ${this.where} is unavailable (${this.client.status}); ${what} not attempted`,
        ),
      );
    }
    try {
      const answer = await withTimeout(work(this.client), this.options.timeoutMs, what);
      this.lastAnswerAt = Date.now();
      this.outage.answered();
      return answer;
    } catch (error) {
      const typed = toStateError(error, what);
      if (typed instanceof StateUnavailableError) {
        this.lastTimeoutAt = Date.now();
        this.lastTimeout = typed.message;
        this.outage.failed();
      } else {
        this.lastAnswerAt = Date.now(); // Redis answered, with an error of the call's own
      }
      throw this.outage.claim(typed);
    }
  }
}
