import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Scorer } from '../../../../domain/engine/index.js';
import { LlmError } from '../../../../domain/llm/llm-errors.js';
import type { LlmClient } from '../../../../domain/llm/llm-client.js';
import { messageRole, transcriptText } from '../message-text.js';
import type { CacheStore } from '../summary-cache.js';
import { LABEL_WEIGHTS, parseLabels } from './parse-labels.js';

/** Cached labels (null where the model gave none); a stored value of another shape is a miss. */
const storedLabels = z.array(z.enum(['K', 'H', 'M', 'S', 'D']).nullable());

/** Instructions for the labelling model. */
export const ANALYZER_PROMPT =
  'You judge which earlier chat messages an assistant needs to answer the current question. Label each numbered message: K = keep (needed), H = helpful, M = maybe, S = skip, D = drop (irrelevant). Answer only with a JSON array of labels in message order, e.g. ["K","S","M"].';

/**
 * LLM relevance labels (Keep/Helpful/Maybe/Skip/Drop → 1/0.75/0.5/0.25/0.05) for the last
 * `window` chat messages, each cut to `snippetChars`; outside the window 0.5, system 1.
 * Cached by model, query and window ids. Throws when the answer cannot be read.
 */
export class LlmAnalyzer implements Scorer {
  readonly name = 'llm';

  constructor(
    private readonly client: LlmClient,
    private readonly store: CacheStore,
    private readonly ttlMs: number,
    private readonly window = 24,
    private readonly snippetChars = 200,
  ) {}

  /** Scores by message id. */
  async score(request: {
    messages: unknown[];
    ids: string[];
    query: string;
    signal?: AbortSignal;
  }): Promise<Record<string, number>> {
    const chat = request.messages
      .map((message, index) => ({ index, role: messageRole(message) }))
      .filter((item) => item.role !== 'system' && item.role !== 'developer');
    if (chat.at(-1)?.role === 'user') chat.pop(); // the question itself is not labelled
    const shown = chat.slice(-this.window);
    const scores: Record<string, number> = {};
    request.messages.forEach(
      (message, index) => (scores[request.ids[index]!] = messageRole(message) === 'system' ? 1 : 0.5),
    );
    if (shown.length === 0) return scores;
    const key = `lab:${createHash('sha256')
      .update(
        [this.client.options.model, request.query, ...shown.map((item) => request.ids[item.index])].join('\u0000'),
      )
      .digest('base64url')
      .slice(0, 32)}`;
    let labels = storedLabels.safeParse((await this.store.getMany([key]).catch(() => [undefined]))[0]).data;
    if (!Array.isArray(labels)) {
      const listing = shown
        .map(
          (item, position) =>
            `${position + 1}. [${item.role.toUpperCase()}] ${transcriptText(request.messages[item.index]).replace(/\s+/g, ' ').slice(0, this.snippetChars)}`,
        )
        .join('\n');
      const answer = await this.client.chat({
        messages: [
          { role: 'system', content: ANALYZER_PROMPT },
          {
            role: 'user',
            content: `Current question: ${request.query.slice(0, 1000)}\n\nMessages:\n${listing}\n\nLabels:`,
          },
        ],
        maxTokens: Math.max(64, 6 * shown.length),
        temperature: 0,
        signal: request.signal,
      });
      const parsed = parseLabels(answer, shown.length);
      if (parsed.filter(Boolean).length < Math.ceil(shown.length / 2))
        throw new LlmError(
          'response',
          `analyzer answer has labels for ${parsed.filter(Boolean).length} of ${shown.length} messages`,
        );
      labels = parsed.map((label) => label ?? null);
      await this.store.setMany([{ key, value: labels, ttlMs: this.ttlMs }]).catch(() => {});
    }
    shown.forEach((item, position) => {
      const label = labels![position];
      if (label) scores[request.ids[item.index]!] = LABEL_WEIGHTS[label];
    });
    return scores;
  }
}
