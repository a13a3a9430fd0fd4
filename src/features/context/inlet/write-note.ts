import type { ChatMessage } from '../../../core/messages/chat-message.js';
import { reportDegraded } from '../../../core/util/store-outage.js';
import type { ContextHookArgs } from '../context-hook-args.js';
import { cappedText } from '../context-options.js';
import type { CompressedContext } from '../compress/plan-and-compress.js';
import {
  CONTEXT_NOTE_TTL_MS,
  contextNoteEnabled,
  contextNoteKey,
  contextNoteOf,
  formatContextNote,
} from '../note/context-note.js';

/**
 * The context note of this plan: posted as Open WebUI's status line (through Eunoe's Function or a pipe's stream)
 * and, when the valves show it, stored for the outlet to put under the reply (a store outage only loses the note).
 */
export async function writeContextNote(
  context: CompressedContext,
  messages: ChatMessage[],
  extras: { previousPrompt: readonly string[] | undefined; link: string | undefined },
  args: Pick<ContextHookArgs, 'valves' | 'userValves' | 'flags' | 'state' | 'logger' | 'emit'>,
): Promise<void> {
  const { valves, userValves, flags, state, logger, emit } = args;
  const { plan } = context.result;
  const capped = cappedText(plan, valves, userValves, flags);
  const note = {
    ...contextNoteOf(
      plan,
      context.outcome ? context.outcome.tokensAfter : plan.tokensAfter,
      context.outcome?.summarized ?? 0,
      extras.previousPrompt,
    ),
    ...(capped ? { capped } : {}),
    ...(extras.link ? { run: extras.link } : {}),
  };
  emit({ type: 'status', data: { description: formatContextNote(note), done: true } });
  if (flags.chatKey && contextNoteEnabled(valves.show_context_note, userValves.show_context_note)) {
    await state
      .set(contextNoteKey(flags.chatKey, messages), note, { ttlMs: CONTEXT_NOTE_TTL_MS })
      .catch((error: Error) => reportDegraded(logger, 'could not save the context note', error));
  }
}
