import { createHash } from 'node:crypto';
import { LlmClient } from './llm-client.js';
import type { LlmClientOptions } from './llm-client-options.js';

/**
 * Clients shared across requests, one per distinct configuration, so the concurrency limit
 * and pooled connections span requests. Keys are hashes (the API key never appears in them).
 */
export class LlmClientPool {
  private readonly clients = new Map<string, LlmClient>();

  /** The client for `options` in `lane`, created on first use; lanes have their own concurrency limit, so background jobs never hold the slots of inlets. */
  get(options: LlmClientOptions, lane: 'inlet' | 'background' = 'inlet'): LlmClient {
    const key = createHash('sha256')
      .update(`${lane}\u0000${JSON.stringify(options)}`)
      .digest('hex');
    let client = this.clients.get(key);
    if (!client) {
      client = new LlmClient(options);
      this.clients.set(key, client);
    }
    return client;
  }

  /** Closes every client's connections. */
  async close(): Promise<void> {
    const clients = [...this.clients.values()];
    this.clients.clear();
    await Promise.allSettled(clients.map((client) => client.close()));
  }
}
