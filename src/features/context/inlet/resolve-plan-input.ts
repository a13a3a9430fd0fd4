import type { PlanInput, TokenCache } from '../../../domain/engine/index.js';
import type { ContextHookArgs } from '../context-hook-args.js';
import { contextOptions } from '../context-options.js';
import { planInputFor } from '../plan-input.js';
import { tracksPreviousPrompt } from '../previous-prompt.js';
import { newRunId } from '../runs/run-store.js';
import { readEchoBoost } from '../echo/echo-loop.js';
import { rememberWeight } from './message-weights.js';
import type { ChatToPlan } from './read-chat.js';

/** The engine input of this inlet and whether it keeps the prompt's prefix stable (cache-ordered algorithms). */
export interface ResolvedInput {
  input: PlanInput;
  tracksPrefix: boolean;
}

/**
 * Resolves the options (valves, user valves, flags, the chat's remembered `!weight`s) and reads what the plan needs
 * from the store; the input carries this inlet's run id (its plan, log lines and run record: GET /runs/:id).
 */
export async function resolvePlanInput(
  chat: ChatToPlan,
  args: Pick<ContextHookArgs, 'valves' | 'userValves' | 'flags' | 'state' | 'services' | 'logger'>,
  tokenCache: TokenCache,
  started: number,
): Promise<ResolvedInput> {
  const { valves, userValves, flags, state, services, logger } = args;
  const { messages, model } = chat;
  const options = contextOptions(valves, userValves, flags);
  // `!weight=F` attaches to the message that carries it and keeps counting on later turns; the echo loop's boost
  // (what the previous replies used) is read beside it.
  const [messageWeights, echo] = await Promise.all([
    rememberWeight({ messages, weight: flags.get('weight'), chatKey: flags.chatKey, state, logger }),
    readEchoBoost({ enabled: valves.echo_boost !== false, chatKey: flags.chatKey, messages, state, logger }),
  ]);
  if (messageWeights) options.messageWeights = messageWeights;
  // Only the cache-ordered algorithms read the prompt sent last time; the others skip the store round trips.
  const tracksPrefix = tracksPreviousPrompt(flags.chatKey, options.algorithm);
  const input = await planInputFor({
    messages,
    model,
    options,
    flags,
    state,
    services,
    readSequence: tracksPrefix,
    tokenCache,
  });
  input.runId = newRunId(started);
  if (echo) input.echo = echo;
  return { input, tracksPrefix };
}
