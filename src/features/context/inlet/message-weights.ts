import { z } from 'zod';
import type { ChatMessage } from '../../../core/messages/chat-message.js';
import type { Logger } from '../../../core/util/logger.js';
import { reportDegraded } from '../../../core/util/store-outage.js';
import { messageIds, newestUserIndex } from '../../../domain/engine/index.js';
import type { ScopedState } from '../../../state/scoped-state.js';

const WEIGHTS_TTL_MS = 7 * 86_400_000;
/** Stored values are JSON someone else may have written: a value of another shape reads as none. */
const storedWeights = z.record(z.string(), z.number());

/**
 * The chat's message weights (`!weight=F`, by message id): the newest user message's weight
 * is added when the flag is set this turn, and all of them are returned for scoring.
 */
export async function rememberWeight(options: {
  messages: ChatMessage[];
  weight: unknown;
  chatKey: string;
  state: ScopedState;
  logger: Logger;
}) {
  if (!options.chatKey) return undefined;
  const key = `weights:${options.chatKey}`;
  let weights = storedWeights.safeParse(await options.state.get(key).catch(() => undefined)).data ?? {};
  if (typeof options.weight === 'number') {
    const newestUser = newestUserIndex(options.messages);
    const id = newestUser >= 0 ? messageIds(options.messages)[newestUser] : undefined;
    if (id && weights[id] !== options.weight) {
      weights = { ...weights, [id]: options.weight };
      await options.state
        .set(key, weights, { ttlMs: WEIGHTS_TTL_MS })
        .catch((error: Error) => reportDegraded(options.logger, 'could not save a message weight', error));
    }
  }
  return Object.keys(weights).length ? weights : undefined;
}
