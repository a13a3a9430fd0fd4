import { appendToReply } from '../../core/messages/append-to-reply.js';
import type { EchoBoost } from '../../domain/engine/index.js';
import { describeFlags } from '../../domain/flags/index.js';
import { stripContextNotes } from '../../domain/notes/context-note-line.js';
import type { FilterBody } from '../../runtime/host/types.js';
import type { ContextHookArgs } from './context-hook-args.js';
import type { ContextInstance } from './context-instance.js';
import { AheadOfTimeRunner } from './compress/ahead-of-time.js';
import { clientFor, compressionFor } from './compress/context-compression.js';
import { nextTurnMessages } from './compress/next-turn.js';
import { planAndCompress } from './compress/plan-and-compress.js';
import { contextOptions } from './context-options.js';
import { recordEcho } from './echo/echo-loop.js';
import { contextNoteEnabled, contextNoteKey, contextNoteSchema, formatContextNote } from './note/context-note.js';
import { planInputFor } from './plan-input.js';

/** The lines under the reply: rejected flag values, `!flags` and the context note the inlet stored. */
async function replyLines({ body, valves, userValves, flags, state }: ContextHookArgs): Promise<string[]> {
  const lines: string[] = [];
  if (flags.notices.length) lines.push(`⚠ ${flags.notices.join(' · ')}`);
  if (flags.get('flags') === true) lines.push(describeFlags(flags));
  if (
    flags.chatKey &&
    Array.isArray(body.messages) &&
    contextNoteEnabled(valves.show_context_note, userValves.show_context_note)
  ) {
    const stored = await state.get(contextNoteKey(flags.chatKey, body.messages)).catch(() => undefined);
    const note = contextNoteSchema.safeParse(stored);
    if (note.success) lines.push(formatContextNote(note.data));
  }
  return lines;
}

/** Schedules the next turn's summaries on the filter's ahead-of-time runner (built by the first outlet needing it). */
async function scheduleAheadOfTime(
  instance: ContextInstance,
  out: FilterBody,
  args: ContextHookArgs,
  echo: EchoBoost | undefined,
): Promise<void> {
  const { valves, userValves, flags, state, services, logger } = args;
  const options = contextOptions(valves, userValves, flags);
  const client = clientFor(instance.pool, valves, 'background');
  if (
    !valves.ahead_of_time ||
    !client ||
    !options.summarize ||
    options.full ||
    !flags.chatKey ||
    !Array.isArray(out.messages) ||
    out.messages.length <= 1
  )
    return;
  // The valves in force now, for this job (a runner built by an earlier outlet must not keep that outlet's values).
  const limits = {
    maxConcurrent: valves.summary_concurrency * 2,
    timeoutMs: valves.ahead_of_time_timeout_ms,
    onError: (error: Error) => logger.warn({ err: error.message }, 'ahead-of-time summary failed'),
  };
  instance.runner ??= new AheadOfTimeRunner(limits);
  const model = typeof out.model === 'string' ? out.model : undefined;
  const compression = compressionFor(client, valves, state, (fields, message) => logger.warn(fields, message));
  compression.settings.warm = true;
  const messages = nextTurnMessages(out.messages);
  const { tokenCache } = instance;
  const started = await instance.runner.schedule(
    state,
    flags.chatKey,
    async (signal) => {
      const input = await planInputFor({
        messages,
        model,
        options,
        flags,
        state,
        services,
        readSequence: true,
        tokenCache,
      });
      if (echo) input.echo = echo;
      const { correction } = input;
      const context = await planAndCompress(input, compression, { correction, signal });
      logger.info(
        {
          summarized: context.outcome?.summarized ?? 0,
          calls: context.outcome?.calls ?? 0,
          cacheHits: context.outcome?.cacheHits ?? 0,
        },
        'ahead-of-time summaries ready',
      );
    },
    limits,
  );
  logger.debug({ started }, 'ahead-of-time summaries');
}

/** The echo loop: what the reply used of the history, stored for the chat's next inlets (`echo_boost`). */
async function rememberEcho({ body, valves, flags, state, logger }: ContextHookArgs): Promise<EchoBoost | undefined> {
  if (valves.echo_boost === false || !flags.chatKey || !Array.isArray(body.messages)) return undefined;
  return recordEcho({
    enabled: true,
    chatKey: flags.chatKey,
    messages: stripContextNotes(body.messages),
    state,
    logger,
  });
}

/**
 * Outlet: rejected flag values, `!flags` and the context note under the reply; records what the reply used (the echo
 * loop); schedules ahead-of-time summaries.
 */
export function createContextOutlet(instance: ContextInstance) {
  return async function contextOutlet(args: ContextHookArgs): Promise<FilterBody> {
    const [lines, echo] = await Promise.all([replyLines(args), rememberEcho(args)]);
    const out = lines.length ? appendToReply(args.body, lines.join('\n')) : args.body;
    await scheduleAheadOfTime(instance, out, args, echo);
    return out;
  };
}
