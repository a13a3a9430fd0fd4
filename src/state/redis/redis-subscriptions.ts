import type { RedisClient } from './create-redis-client.js';
import type { Logger } from '../../core/util/logger.js';

/**
 * Pub/sub handlers over one dedicated subscriber connection, created on the first
 * subscribe. ioredis queues SUBSCRIBE while offline; after a reconnect this class subscribes
 * every channel again (each call with its own failure handler).
 */
export class RedisSubscriptions {
  private readonly handlers = new Map<string, Set<(message: string) => void>>();
  private client: RedisClient | undefined;

  constructor(
    private readonly connect: () => RedisClient,
    private readonly logger: Logger,
  ) {}

  /** Listen on the full channel name; returns an unsubscribe function. */
  subscribe(channel: string, handler: (message: string) => void): () => void {
    const client = this.ensureClient();
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
      this.subscribeOn(client, channel);
    }
    set.add(handler);
    return () => {
      const current = this.handlers.get(channel);
      if (!current?.delete(handler) || current.size > 0) return;
      this.handlers.delete(channel);
      this.client?.unsubscribe(channel).catch(() => {});
    };
  }

  /** Close the subscriber connection and forget every handler. */
  close(): void {
    this.handlers.clear();
    this.client?.disconnect();
    this.client = undefined;
  }

  private subscribeOn(client: RedisClient, channel: string): void {
    client.subscribe(channel).catch((error: unknown) => {
      this.logger.warn({ err: error, channel }, 'state subscribe failed; it is retried after reconnect');
    });
  }

  private ensureClient(): RedisClient {
    if (this.client) return this.client;
    const client = this.connect();
    let connectedBefore = false;
    client.on('ready', () => {
      if (connectedBefore) for (const channel of this.handlers.keys()) this.subscribeOn(client, channel);
      connectedBefore = true;
    });
    client.on('message', (channel: string, message: string) => {
      for (const handler of this.handlers.get(channel) ?? []) {
        try {
          handler(message);
        } catch (error) {
          this.logger.error({ err: error, channel }, 'state subscriber threw');
        }
      }
    });
    this.client = client;
    return client;
  }
}
