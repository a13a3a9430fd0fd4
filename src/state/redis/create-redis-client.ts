import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { RedisAuth, RedisTopology } from './redis-topology.js';
import { QuietSentinelConnector } from './sentinel-connector.js';

/** A connection to one node or a Sentinel-managed primary (`Redis`), or to a Cluster. */
export type RedisClient = Redis | Cluster;

/** Options for the clients of the Redis backend. */
export interface RedisClientOptions {
  /** Upper bound of the reconnect backoff in ms (default 2000); it reconnects forever. */
  maxRetryDelayMs?: number;
  /** How long one connection attempt may take (default 5000 ms). */
  connectTimeoutMs?: number;
  /** The subscriber connection queues SUBSCRIBE while offline (RedisSubscriptions resubscribes after a reconnect). */
  subscriber?: boolean;
}

/** TLS options: the configured CA when there is one, else Node's trusted CAs. */
function tlsOf(auth: RedisAuth): { ca?: string } {
  return auth.ca ? { ca: auth.ca } : {};
}

/** Reconnect delay for attempt `times` (1-based): 50 ms doubling, capped, plus a little jitter. */
export function reconnectDelay(times: number, maxDelayMs: number): number {
  return Math.min(50 * 2 ** Math.min(times - 1, 16), maxDelayMs) + Math.floor(Math.random() * 50);
}

/**
 * An ioredis client that fails fast while disconnected: no offline queue, no automatic
 * resend of commands that were in flight when the link dropped (callers already got an
 * error or a timeout; ledger appends are replayed by our own queue), and reconnection
 * forever with capped backoff. A URL (redis://[:password@]host:port/db, rediss:// for TLS) is one node;
 * a Sentinel topology uses ioredis' Sentinel support (the primary is asked of the sentinels at every
 * connection, and a `+switch-master` they announce drops the link to the old one at once); a Cluster
 * topology uses ioredis' Cluster client (slots map refreshed on MOVED and after failovers).
 */
export function createRedisClient(target: string | RedisTopology, options: RedisClientOptions = {}): RedisClient {
  const topology: RedisTopology = typeof target === 'string' ? { kind: 'single', url: target } : target;
  const maxDelay = options.maxRetryDelayMs ?? 2000;
  const retry = (times: number) => reconnectDelay(times, maxDelay);
  const common: RedisOptions = {
    enableOfflineQueue: options.subscriber === true,
    maxRetriesPerRequest: options.subscriber ? null : 0,
    autoResendUnfulfilledCommands: false,
    // ioredis' own resubscribe after a reconnect sends SUBSCRIBE with no handler: a link that drops again meanwhile
    // rejects it unhandled. RedisSubscriptions resubscribes itself.
    autoResubscribe: false,
    connectTimeout: options.connectTimeoutMs ?? 5000,
    retryStrategy: retry,
  };
  let client: RedisClient;
  if (topology.kind === 'single')
    client = new Redis(topology.url, topology.tls ? { ...common, tls: topology.tls } : common);
  else if (topology.kind === 'sentinel') {
    const { auth } = topology;
    client = new Redis({
      ...common,
      sentinels: topology.sentinels,
      name: topology.name,
      ...(auth.username ? { username: auth.username } : {}),
      ...(auth.password ? { password: auth.password } : {}),
      ...(auth.sentinelPassword ? { sentinelPassword: auth.sentinelPassword } : {}),
      ...(auth.tls ? { tls: tlsOf(auth), enableTLSForSentinelMode: true, sentinelTLS: tlsOf(auth) } : {}),
      sentinelRetryStrategy: retry,
      failoverDetector: true,
      Connector: QuietSentinelConnector,
      // A demoted primary answers writes with READONLY: ask the sentinels again.
      reconnectOnError: (error) => error.message.startsWith('READONLY'),
    });
  } else {
    const { auth } = topology;
    client = new Cluster(topology.nodes, {
      enableOfflineQueue: options.subscriber === true,
      clusterRetryStrategy: retry,
      enableAutoPipelining: !options.subscriber,
      retryDelayOnFailover: 100,
      retryDelayOnClusterDown: 100,
      // A primary killed outright answers no MOVED: without a periodic refresh the client keeps sending its slots
      // to the dead address after its replica took over. One CLUSTER SLOTS a second finds the new primary.
      slotsRefreshInterval: 1000,
      redisOptions: {
        maxRetriesPerRequest: options.subscriber ? null : 0,
        autoResendUnfulfilledCommands: false,
        autoResubscribe: false,
        connectTimeout: options.connectTimeoutMs ?? 5000,
        ...(auth.username ? { username: auth.username } : {}),
        ...(auth.password ? { password: auth.password } : {}),
        ...(auth.tls ? { tls: tlsOf(auth) } : {}),
      },
    });
  }
  // Without a listener ioredis prints every failed attempt; the outage monitor logs instead.
  client.on('error', () => {});
  return client;
}

/**
 * Connect again whenever ioredis gives up on its own (status `end` without our close): its Sentinel client can
 * end while a failover's `+switch-master` drops a connection attempt under way, which would leave a replica
 * without state until restarted. `isClosed` tells our own close apart.
 */
export function reconnectWhenEnded(client: RedisClient, isClosed: () => boolean, maxDelayMs = 2000): void {
  let attempt = 0;
  client.on('ready', () => {
    attempt = 0;
  });
  client.on('end', () => {
    if (isClosed()) return;
    const timer = setTimeout(
      () => {
        if (!isClosed() && client.status === 'end') client.connect().catch(() => {});
      },
      reconnectDelay(++attempt, maxDelayMs),
    );
    timer.unref();
  });
}
