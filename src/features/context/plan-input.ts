import type { PlanInput, TokenCache } from '../../domain/engine/index.js';
import { keepTags } from '../../domain/flags/index.js';
import type { ScopedState } from '../../state/scoped-state.js';
import type { ContextHookArgs } from './context-hook-args.js';
import { readPreviousPrompt } from './previous-prompt.js';

/**
 * The engine input for this chat: its flags' pins and tags, the filter's token cache, the price list, the model's
 * learned token correction and, when asked, the sequence sent last time (both read from the store; a store that
 * does not answer means none).
 */
export async function planInputFor(args: {
  messages: unknown[];
  model: string | undefined;
  options: PlanInput['options'];
  flags: ContextHookArgs['flags'];
  state: ScopedState;
  services: ContextHookArgs['services'];
  readSequence: boolean;
  tokenCache: TokenCache;
}): Promise<PlanInput> {
  const { messages, model, options, flags, state, services, tokenCache } = args;
  const previousSequence = args.readSequence ? await readPreviousPrompt(state, flags.chatKey) : undefined;
  const correction = model ? await services.corrections?.get(model).catch(() => undefined) : undefined;
  return {
    messages,
    model,
    options,
    marks: flags.marks,
    keepTags: keepTags(flags),
    previousSequence,
    tokenCache,
    pricing: services.pricing,
    correction,
  };
}
