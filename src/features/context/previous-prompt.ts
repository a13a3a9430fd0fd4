import { z } from 'zod';
import { withStablePrefix } from '../../core/messages/cache-breakpoint.js';
import type { FilterBody } from '../../core/messages/request.js';
import type { Logger } from '../../core/util/logger.js';
import { reportDegraded } from '../../core/util/store-outage.js';
import { cacheOrdered, type AlgorithmName } from '../../domain/engine/index.js';
import type { ScopedState } from '../../state/scoped-state.js';
import type { CompressedContext } from './compress/plan-and-compress.js';

/**
 * The chat's previous prompt (the ids of the messages sent last time, in send order), kept per
 * chat in the filter's state for the algorithms whose order the provider's prompt cache decides
 * (`prefix_cache`, `cache_stable`): the engine gets it as `previousSequence`.
 */
export const PREVIOUS_PROMPT_TTL_MS = 7 * 86_400_000;
/** Stored values are JSON someone else may have written: a value of another shape reads as none. */
const storedSequence = z.array(z.string());

const keyOf = (chatKey: string) => `seq:${chatKey}`;

/** Whether this chat's previous prompt is read and saved: a chat key and a cache-ordered algorithm. */
export function tracksPreviousPrompt(chatKey: string, algorithm: AlgorithmName | undefined): boolean {
  return Boolean(chatKey) && algorithm !== undefined && cacheOrdered(algorithm);
}

/** The previous prompt of the chat, or undefined (none, another shape, or a store that does not answer). */
export async function readPreviousPrompt(state: ScopedState, chatKey: string): Promise<string[] | undefined> {
  return storedSequence.safeParse(await state.get(keyOf(chatKey)).catch(() => undefined)).data;
}

/** Saves what was sent this time; a store outage degrades prefix reuse and is logged, never thrown. */
export async function savePreviousPrompt(
  state: ScopedState,
  chatKey: string,
  sequence: readonly string[],
  logger: Logger,
): Promise<void> {
  await state
    .set(keyOf(chatKey), sequence, { ttlMs: PREVIOUS_PROMPT_TTL_MS })
    .catch((error: Error) => reportDegraded(logger, 'could not save the sequence sent (prefix reuse degrades)', error));
}

/**
 * The inlet's body with where its stable prefix ends (`metadata.eunoe_stable_prefix`), for a pipe that sets prompt-cache
 * breakpoints (the `openai-proxy`'s `cache_control` valve). Left out when a summary block was inserted: it is
 * rewritten as the dropped part changes, so nothing after it is stable.
 */
export function withStablePrefixHint(body: FilterBody, context: CompressedContext): FilterBody {
  if (context.messages.length !== context.result.messages.length || context.result.stablePrefix <= 0) return body;
  return withStablePrefix(body, context.result.stablePrefix) as FilterBody;
}
