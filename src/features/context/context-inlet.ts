import type { ChatMessage } from '../../core/messages/chat-message.js';
import type { FilterBody } from '../../runtime/host/types.js';
import { provided } from '../../runtime/host/service-registry.js';
import type { ContextHookArgs } from './context-hook-args.js';
import type { ContextInstance } from './context-instance.js';
import { clientFor, compressionFor } from './compress/context-compression.js';
import { compressContext } from './inlet/compress-context.js';
import { logPlan } from './inlet/log-plan.js';
import { modelTimeBudget } from './inlet/model-time.js';
import { readChat } from './inlet/read-chat.js';
import { dispositionCounts, recordContextStats } from './inlet/record-stats.js';
import { resolvePlanInput } from './inlet/resolve-plan-input.js';
import { scoreWithModels } from './inlet/score-with-models.js';
import { writeContextNote } from './inlet/write-note.js';
import { savePreviousPrompt, withStablePrefixHint } from './previous-prompt.js';
import { recordRun, runLink } from './runs/record-run.js';
import { contextRunsService } from './services.js';

/**
 * Inlet of the context filter: on every inlet, scores the history against the current query (keywords,
 * optionally blended with embeddings or LLM labels) and keeps, summarizes or drops messages
 * under the token/cost budget (never splitting tool pairs, never producing an order a provider
 * rejects), obeying the chat's `!flags`. Summaries are cached per message ids and prepared after
 * each reply. Its steps: read the chat → resolve the plan's input → score with models → plan and summarize →
 * save the prompt sent → record the run, the note and the statistics → log.
 */
export function createContextInlet(instance: ContextInstance) {
  return async function contextInlet(args: ContextHookArgs): Promise<FilterBody> {
    const { body, valves, userValves, flags, state, services, logger, signal, user } = args;
    const [started, startedAt] = [Date.now(), performance.now()];
    const modelTimeMs = modelTimeBudget(args.deadline);
    const chat = readChat(body);
    if (!chat) return body;
    const { messages, model } = chat;
    const { input, tracksPrefix } = await resolvePlanInput(chat, args, instance.tokenCache, started);
    const client = clientFor(instance.pool, valves);
    const scoring = await scoreWithModels(input, messages, client, args, modelTimeMs(valves.scoring_timeout_ms));
    const warn = (fields: Record<string, unknown>, message: string) => logger.warn(fields, message);
    const compression = client && input.options?.summarize ? compressionFor(client, valves, state, warn) : undefined;
    const context = await compressContext(input, compression, {
      chatKey: flags.chatKey,
      runner: instance.runner,
      summaryMs: modelTimeMs(valves.summary_timeout_ms),
      signal,
    });
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
    await writeContextNote(
      context,
      messages,
      { previousPrompt: tracksPrefix ? input.previousSequence : undefined, link: runLink(valves, user, runId) },
      args,
    );
    const counts = dispositionCounts(context);
    await recordContextStats(context, counts, args);
    logPlan(context, { model, counts, scoring }, args);
    // The engine returns the input's own message objects plus the summary messages it writes.
    const out = { ...body, messages: context.messages as ChatMessage[] };
    return tracksPrefix ? withStablePrefixHint(out, context) : out;
  };
}
