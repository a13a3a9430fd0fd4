import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Scorer } from '../../../../domain/engine/index.js';
import type { LlmClient } from '../../../../domain/llm/llm-client.js';
import { messageRole, transcriptText } from '../message-text.js';
import type { CacheStore } from '../summary-cache.js';
import { cosine, normalizeSimilarities } from './cosine.js';

/** Characters of a message sent for embedding. */
const MAX_CHARS = 4000;
/** A cached embedding; a stored value of another shape is a miss. */
const storedVector = z.array(z.number());

/**
 * Embedding-similarity relevance: each chat message's embedding against the query's,
 * scored (cos + 1) / 2, divided by the best, floored. Embeddings are cached in the store
 * by model and content id, so each message is embedded once.
 */
export class EmbeddingScorer implements Scorer {
  readonly name = 'embedding';

  constructor(
    private readonly client: LlmClient,
    private readonly store: CacheStore,
    private readonly ttlMs: number,
    private readonly floor = 0.05,
  ) {}

  /** Scores in [floor, 1] by message id; system messages score 1. */
  async score(request: {
    messages: unknown[];
    ids: string[];
    query: string;
    signal?: AbortSignal;
  }): Promise<Record<string, number>> {
    const model = this.client.options.embeddingModel;
    const chat = request.messages
      .map((message, index) => ({ index, id: request.ids[index]!, role: messageRole(message) }))
      .filter((item) => item.role !== 'system' && item.role !== 'developer');
    const queryId = createHash('sha256').update(request.query).digest('base64url').slice(0, 16);
    const keyOf = (id: string) =>
      `emb:${createHash('sha256').update(`${model}\u0000${id}`).digest('base64url').slice(0, 24)}`;
    const ids = [queryId, ...chat.map((item) => item.id)];
    const texts = [request.query, ...chat.map((item) => transcriptText(request.messages[item.index]))];
    const stored = await this.store.getMany(ids.map(keyOf)).catch(() => ids.map(() => undefined));
    const cached = stored.map((value) => storedVector.safeParse(value).data);
    const missing = ids.map((_, position) => position).filter((position) => !Array.isArray(cached[position]));
    if (missing.length > 0) {
      const vectors = await this.client.embed({
        texts: missing.map((position) => texts[position]!.slice(0, MAX_CHARS) || ' '),
        signal: request.signal,
      });
      missing.forEach((position, at) => (cached[position] = vectors[at]));
      await this.store
        .setMany(
          missing.map((position) => ({ key: keyOf(ids[position]!), value: cached[position], ttlMs: this.ttlMs })),
        )
        .catch(() => {});
    }
    const queryVector = cached[0]!;
    const normalized = normalizeSimilarities(
      chat.map((_, position) => cosine(queryVector, cached[position + 1]!)),
      this.floor,
    );
    const scores: Record<string, number> = {};
    request.messages.forEach((_, index) => (scores[request.ids[index]!] = 1));
    chat.forEach((item, position) => (scores[item.id] = normalized[position]!));
    return scores;
  }
}
