import { LruTokenCache } from '../../domain/engine/index.js';
import { LlmClientPool } from '../../domain/llm/client-pool.js';
import type { AheadOfTimeRunner } from './compress/ahead-of-time.js';

/**
 * What one context filter keeps between requests: token counts (ids are content hashes, so a message is tokenized
 * once), the model clients and the ahead-of-time summary runner (built by the first outlet that schedules one).
 * Each context filter has its own; two in one process share nothing.
 */
export interface ContextInstance {
  tokenCache: LruTokenCache;
  pool: LlmClientPool;
  runner: AheadOfTimeRunner | undefined;
}

export function createContextInstance(): ContextInstance {
  return { tokenCache: new LruTokenCache(200_000), pool: new LlmClientPool(), runner: undefined };
}

/** Stops background summarizing and closes the model clients; the instance can be used again afterwards. */
export async function closeContextInstance(instance: ContextInstance): Promise<void> {
  const { runner } = instance;
  instance.runner = undefined;
  await runner?.close();
  await instance.pool.close();
}
