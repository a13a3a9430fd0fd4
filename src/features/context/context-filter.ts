import { z } from 'zod';
import type { FilterBody, HookArgs } from '../../runtime/host/types.js';
import type { ScopedState } from '../../state/scoped-state.js';
import type { Logger } from '../../core/util/logger.js';
import { isRecord, type ChatMessage } from '../../core/messages/chat-message.js';
import {
  LruTokenCache,
  loadEncoder,
  messageIds,
  newestUserIndex,
  planContext,
  type PlanInput,
} from '../../domain/engine/index.js';
import { appendToReply } from '../../core/messages/append-to-reply.js';
import { describeFlags, keepTags } from '../../domain/flags/index.js';
import { LlmClientPool } from '../../domain/llm/client-pool.js';
import { AheadOfTimeRunner } from './compress/ahead-of-time.js';
import { clientFor, compressionFor, scorersFor } from './compress/context-compression.js';
import { nextTurnMessages } from './compress/next-turn.js';
import { lastUserText } from '../../core/messages/last-user-message.js';
import { type CompressedContext, planAndCompress } from './compress/plan-and-compress.js';
import { externalScores } from './compress/scoring/external-scores.js';
import {
  CONTEXT_NOTE_TTL_MS,
  contextNoteEnabled,
  contextNoteKey,
  contextNoteOf,
  contextNoteSchema,
  formatContextNote,
} from './note/context-note.js';
import { stripContextNotes } from '../../domain/notes/context-note-line.js';
import { cappedText, contextOptions } from './context-options.js';
import type { ContextUserValves, ContextValves } from './context-valves.js';
import { timeoutSignal } from '../../core/util/timeout-signal.js';
import { provided } from '../../runtime/host/service-registry.js';
import { contextMetricsService, contextRunsService, contextStatsService } from './services.js';
import { recordRun, runLink } from './runs/record-run.js';
import { newRunId } from './runs/run-store.js';
import { storeOutage } from '../../core/util/store-outage.js';
import {
  readPreviousPrompt,
  savePreviousPrompt,
  tracksPreviousPrompt,
  withStablePrefixHint,
} from './previous-prompt.js';

/** What the context filter's hooks receive. */
export type ContextHookArgs = HookArgs<ContextValves, ContextUserValves>;

/** Token counts survive across requests in this process; ids are content hashes, so a message is tokenized once. */
const tokenCache = new LruTokenCache(200_000);
const SEQUENCE_TTL_MS = 7 * 86_400_000;
/** Stored values are JSON someone else may have written: a value of another shape reads as none. */
const storedWeights = z.record(z.string(), z.number());
const pool = new LlmClientPool();
let runner: AheadOfTimeRunner | undefined;

/**
 * The engine input for this chat: its flags' pins and tags, the shared token cache, the price list, the model's
 * learned token correction and, when asked, the sequence sent last time (both read from the store; a store that
 * does not answer means none).
 */
async function planInputFor(args: {
  messages: unknown[];
  model: string | undefined;
  options: PlanInput['options'];
  flags: ContextHookArgs['flags'];
  state: ScopedState;
  services: ContextHookArgs['services'];
  readSequence: boolean;
}): Promise<PlanInput> {
  const { messages, model, options, flags, state, services } = args;
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

/**
 * The chat's message weights (`!weight=F`, by message id): the newest user message's weight
 * is added when the flag is set this turn, and all of them are returned for scoring.
 */
async function rememberWeight(options: {
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
        .set(key, weights, { ttlMs: SEQUENCE_TTL_MS })
        .catch((error: Error) => storeOutage.degraded(options.logger, 'could not save a message weight', error));
    }
  }
  return Object.keys(weights).length ? weights : undefined;
}

/**
 * Inlet of the context filter: on every inlet, scores the history against the current query (keywords,
 * optionally blended with embeddings or LLM labels) and keeps, summarizes or drops messages
 * under the token/cost budget (never splitting tool pairs, never producing an order a provider
 * rejects), obeying the chat's `!flags`. Summaries are cached per message ids and prepared after
 * each reply. On outlet, answers `!flags` and reports rejected flag values.
 */
export async function contextInlet({
  body,
  valves,
  userValves,
  flags,
  state,
  services,
  logger,
  signal,
  emit,
  user,
  deadline: hookDeadline,
}: ContextHookArgs): Promise<FilterBody> {
  const [started, startedAt] = [Date.now(), performance.now()];
  // A fifth of the hook's time (at least 1.5 s) is kept back from model calls (scoring, summaries) for the fallback
  // and the reply, so a busy machine still answers before the host's 504: a model call gets at most `limitMs` and
  // ends that reserve before the hook's deadline (whole ms, at least 100).
  const reserveMs = Math.max(1500, Math.round((hookDeadline - Date.now()) / 5));
  const modelTimeMs = (limitMs: number) =>
    Math.max(100, Math.floor(Math.min(limitMs, hookDeadline - Date.now() - reserveMs)));
  const task = isRecord(body.metadata) ? body.metadata.task : undefined;
  if (task) return body; // Open WebUI background tasks (titles, tags) pass untouched.
  if (!Array.isArray(body.messages) || body.messages.length === 0) return body;
  const messages = stripContextNotes(body.messages);
  const model = typeof body.model === 'string' ? body.model : undefined;
  const options = contextOptions(valves, userValves, flags);
  // `!weight=F` attaches to the message that carries it and keeps counting on later turns.
  const messageWeights = await rememberWeight({
    messages,
    weight: flags.get('weight'),
    chatKey: flags.chatKey,
    state,
    logger,
  });
  if (messageWeights) options.messageWeights = messageWeights;
  // Only the cache-ordered algorithms read the prompt sent last time; the others skip the store round trips.
  const tracksPrefix = tracksPreviousPrompt(flags.chatKey, options.algorithm);
  const input = await planInputFor({ messages, model, options, flags, state, services, readSequence: tracksPrefix });
  // One id for this inlet's plan, its log lines and its run record (GET /runs/:id).
  input.runId = newRunId(started);
  const { correction } = input;
  const client = clientFor(pool, valves);
  const warn = (fields: Record<string, unknown>, message: string) => logger.warn(fields, message);
  let scoring: { used: string[]; failed: number } | undefined;
  if (client && valves.scoring !== 'none') {
    const probe = planContext(input).plan;
    if (probe.budget.targetTokens > 0 && probe.tokensBefore > probe.budget.targetTokens) {
      const scored = await externalScores({
        scorers: scorersFor(client, valves, state),
        messages,
        ids: messageIds(messages),
        query: lastUserText(messages) ?? '',
        timeoutMs: modelTimeMs(valves.scoring_timeout_ms),
        signal,
      });
      if (scored.failed.length)
        logger.warn({ failed: scored.failed }, 'model-assisted scoring failed; keyword scoring used for it');
      if (scored.scores) input.options = { ...options, weighting: 'composite', externalWeight: valves.scoring_weight };
      input.externalScores = scored.scores;
      scoring = { used: scored.used, failed: scored.failed.length };
    }
  }
  const compression = client && options.summarize ? compressionFor(client, valves, state, warn) : undefined;
  // One deadline for all summarizing of this inlet (retries included), ending before the host's hook timeout:
  // a slow model falls back to dropping instead of a 504.
  const summaryMs = modelTimeMs(valves.summary_timeout_ms);
  const deadline = timeoutSignal(summaryMs, signal);
  let context: CompressedContext;
  try {
    if (compression && flags.chatKey) await runner?.settle(flags.chatKey, summaryMs / 2);
    context = await planAndCompress(input, compression, { correction, signal: deadline.signal });
  } finally {
    deadline.clear();
  }
  const { plan } = context.result;
  if (tracksPrefix) await savePreviousPrompt(state, flags.chatKey, context.result.sequence, logger);
  const runId = recordRun({
    runs: provided(services, contextRunsService),
    valves,
    userValves,
    flags,
    user,
    model,
    messages,
    context,
    started,
    durationMs: performance.now() - startedAt,
  });
  const link = runLink(valves, user, runId);
  const capped = cappedText(plan, valves, userValves, flags);
  const note = {
    ...contextNoteOf(
      plan,
      context.outcome ? context.outcome.tokensAfter : plan.tokensAfter,
      context.outcome?.summarized ?? 0,
      tracksPrefix ? input.previousSequence : undefined,
    ),
    ...(capped ? { capped } : {}),
    ...(link ? { run: link } : {}),
  };
  // The status line in Open WebUI (through Eunoe's Function or a pipe's stream): the same words as the note.
  emit({ type: 'status', data: { description: formatContextNote(note), done: true } });
  if (flags.chatKey && contextNoteEnabled(valves.show_context_note, userValves.show_context_note)) {
    await state
      .set(contextNoteKey(flags.chatKey, messages), note, { ttlMs: CONTEXT_NOTE_TTL_MS })
      .catch((error: Error) => storeOutage.degraded(logger, 'could not save the context note', error));
  }
  const counts = { keep: 0, pinned: 0, summarize: 0, drop: 0 };
  for (const entry of plan.entries) counts[entry.disposition]++;
  const outcome = context.outcome;
  const stats = {
    tokensBefore: plan.tokensBefore,
    tokensAfter: outcome ? outcome.tokensAfter : plan.tokensAfter,
    kept: counts.keep + counts.pinned,
    summarized: outcome?.summarized ?? 0,
    // Planned drops, plus the messages marked for a summary that were dropped instead (all of them without one).
    dropped: counts.drop + (outcome ? outcome.dropped : counts.summarize),
  };
  provided(services, contextMetricsService)?.contextPlan(stats);
  // Numbers only, per UTC day, for the dashboard's Context view; a store outage never fails the inlet.
  await provided(services, contextStatsService)
    ?.record({ ...stats, summarizerCalls: outcome?.calls ?? 0, cacheHits: outcome?.cacheHits ?? 0 })
    .catch((error: Error) => storeOutage.degraded(logger, 'could not record context statistics', error));
  const receipts = outcome?.receipts.map((receipt) => ({
    messages: receipt.ids.length,
    checked: receipt.checked,
    missing: receipt.missing.length,
    action: receipt.action,
  }));
  logger.debug(
    {
      runId: plan.runId,
      entries: plan.entries,
      notes: plan.notes,
      budget: plan.budget,
      facts: outcome?.receipts.map((receipt) => receipt.missing),
    },
    'context plan',
  );
  logger.info(
    {
      runId: plan.runId,
      model,
      algorithm: plan.algorithm,
      before: plan.tokensBefore,
      after: outcome ? outcome.tokensAfter : plan.tokensAfter,
      limit: plan.budget.limitTokens,
      overBudget: plan.overBudget,
      ...(plan.capped ? { capped: plan.capped } : {}),
      ...(plan.compactionSummary ? { openWebUISummaryTokens: plan.compactionSummary.tokens } : {}),
      ...counts,
      flags: flags.effective,
      source: flags.source,
      ...(outcome
        ? {
            summary: {
              level: outcome.level,
              summarized: outcome.summarized,
              dropped: outcome.dropped,
              calls: outcome.calls,
              cacheHits: outcome.cacheHits,
              tokens: outcome.blockTokens,
              truncated: outcome.truncated,
              keptSources: context.keptSources.length,
            },
            receipts,
            notes: plan.notes,
          }
        : {}),
      ...(scoring ? { scoring } : {}),
    },
    'context planned',
  );
  // The engine returns the input's own message objects plus the summary messages it writes.
  const out = { ...body, messages: context.messages as ChatMessage[] };
  return tracksPrefix ? withStablePrefixHint(out, context) : out;
}

/** Outlet: rejected flag values, `!flags` and the context note under the reply; schedules ahead-of-time summaries. */
export async function contextOutlet({
  body,
  valves,
  userValves,
  flags,
  state,
  services,
  logger,
}: ContextHookArgs): Promise<FilterBody> {
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
  const out = lines.length ? appendToReply(body, lines.join('\n')) : body;
  const options = contextOptions(valves, userValves, flags);
  const client = clientFor(pool, valves, 'background');
  if (
    valves.ahead_of_time &&
    client &&
    options.summarize &&
    !options.full &&
    flags.chatKey &&
    Array.isArray(out.messages) &&
    out.messages.length > 1
  ) {
    // The valves in force now, for this job (a runner built by an earlier outlet must not keep that outlet's values).
    const limits = {
      maxConcurrent: valves.summary_concurrency * 2,
      timeoutMs: valves.ahead_of_time_timeout_ms,
      onError: (error: Error) => logger.warn({ err: error.message }, 'ahead-of-time summary failed'),
    };
    runner ??= new AheadOfTimeRunner(limits);
    const model = typeof out.model === 'string' ? out.model : undefined;
    const compression = compressionFor(client, valves, state, (fields, message) => logger.warn(fields, message));
    compression.settings.warm = true;
    const messages = nextTurnMessages(out.messages);
    const started = await runner.schedule(
      state,
      flags.chatKey,
      async (signal) => {
        const input = await planInputFor({ messages, model, options, flags, state, services, readSequence: true });
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
  return out;
}

/**
 * Loads the default tokenizer's ranks (the filter's onStartup): done at the first inlet instead, it held the
 * event loop for about a second while other requests waited.
 */
export function warmContext(): void {
  loadEncoder('o200k_base');
}

/** Stops background summarizing and closes the model clients (the filter's onShutdown). */
export async function closeContext(): Promise<void> {
  await runner?.close();
  runner = undefined;
  await pool.close();
}
