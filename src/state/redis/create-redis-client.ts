import { Redis } from 'ioredis';

/** Options for the clients of the Redis backend. */
export interface RedisClientOptions {
  /** Upper bound of the reconnect backoff in ms (default 2000); it reconnects forever. */
  maxRetryDelayMs?: number;
  /** How long one connection attempt may take (default 5000 ms). */
  connectTimeoutMs?: number;
  /** The subscriber connection queues SUBSCRIBE while offline (RedisSubscriptions resubscribes after a reconnect). */
  subscriber?: boolean;
}

/** Reconnect delay for attempt `times` (1-based): 50 ms doubling, capped, plus a little jitter. */
export function reconnectDelay(times: number, maxDelayMs: number): number {
  return Math.min(50 * 2 ** Math.min(times - 1, 16), maxDelayMs) + Math.floor(Math.random() * 50);
}

/**
 * An ioredis client that fails fast while disconnected: no offline queue, no automatic
 * resend of commands that were in flight when the link dropped (callers already got an
 * error or a timeout; ledger appends are replayed by our own queue), and reconnection
 * forever with capped backoff. URL forms: redis://[:password@]host:port/db, rediss:// for TLS.
 */
export function createRedisClient(url: string, options: RedisClientOptions = {}): Redis {
  const maxDelay = options.maxRetryDelayMs ?? 2000;
  const client = new Redis(url, {
    enableOfflineQueue: options.subscriber === true,
    maxRetriesPerRequest: options.subscriber ? null : 0,
    autoResendUnfulfilledCommands: false,
    // ioredis' own resubscribe after a reconnect sends SUBSCRIBE with no handler: a link that drops again meanwhile
    // rejects it unhandled. RedisSubscriptions resubscribes itself.
    autoResubscribe: false,
    connectTimeout: options.connectTimeoutMs ?? 5000,
    retryStrategy: (times) => reconnectDelay(times, maxDelay),
  });
  // Without a listener ioredis prints every failed attempt; the outage monitor logs instead.
  client.on('error', () => {});
  return client;
}
