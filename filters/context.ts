import { baseValves, defineFilter, appendToReply, z } from '../src/sdk.js';
import type { ScopedState } from '../src/state/scoped-state.js';
import type { Logger } from '../src/util/logger.js';
import { defaultEngineOptions, LruTokenCache, messageIds, newestUserIndex, planContext, type PlanInput } from '../src/engine/index.js';
import { contextOptions } from '../src/filters/context-options.js';
import { describeFlags, keepTags } from '../src/flags/index.js';
import { LlmClientPool } from '../src/llm/client-pool.js';
import { AheadOfTimeRunner } from '../src/compress/ahead-of-time.js';
import { clientFor, compressionFor, scorersFor } from '../src/compress/context-compression.js';
import { lastUserText, nextTurnMessages } from '../src/compress/next-turn.js';
import { planAndCompress } from '../src/compress/plan-and-compress.js';
import { externalScores } from '../src/compress/scoring/external-scores.js';
import { summaryValves } from '../src/compress/summary-valves.js';
import { CONTEXT_NOTE_TTL_MS, contextNoteEnabled, contextNoteKey, contextNoteOf, contextNoteSchema, formatContextNote, stripContextNotes } from '../src/context/context-note.js';

/** Token counts survive across requests in this process; ids are content hashes, so a message is tokenized once. */
const tokenCache = new LruTokenCache(200_000);
const SEQUENCE_TTL_MS = 7 * 86_400_000;
const pool = new LlmClientPool();
let runner: AheadOfTimeRunner | undefined;

type Message = { role?: unknown };

/**
 * The chat's message weights (`!weight=F`, by message id): the newest user message's weight
 * is added when the flag is set this turn, and all of them are returned for scoring.
 */
async function rememberWeight(options: { messages: Message[]; weight: unknown; chatKey: string; state: ScopedState; logger: Logger }) {
  if (!options.chatKey) return undefined;
  const key = `weights:${options.chatKey}`;
  let weights = (await options.state.get<Record<string, number>>(key).catch(() => undefined)) ?? {};
  if (typeof options.weight === 'number') {
    const newestUser = newestUserIndex(options.messages);
    const id = newestUser >= 0 ? messageIds(options.messages)[newestUser] : undefined;
    if (id && weights[id] !== options.weight) {
      weights = { ...weights, [id]: options.weight };
      await options.state.set(key, weights, { ttlMs: SEQUENCE_TTL_MS }).catch((error: Error) => options.logger.warn({ err: error.message }, 'could not save a message weight'));
    }
  }
  return Object.keys(weights).length ? weights : undefined;
}

/** Valve defaults are the engine's defaults: what the benchmarks measure is what ships. */
const engine = defaultEngineOptions();

/**
 * The context filter: on every inlet, scores the history against the current query (keywords,
 * optionally blended with embeddings or LLM labels) and keeps, summarizes or drops messages
 * under the token/cost budget (never splitting tool pairs, never producing an order a provider
 * rejects), obeying the chat's `!flags`. Summaries are cached per message ids and prepared after
 * each reply. On outlet, answers `!flags` and reports rejected flag values.
 */
export default defineFilter({
  name: 'Context Budget',
  valves: baseValves.extend({
    max_tokens: z.number().int().min(0).default(16000).describe('Hard token budget for the whole prompt, system prompt included (0 = no limit)'),
    target_tokens: z.number().int().min(0).default(0).describe('Soft token target (0 = none)'),
    context_fraction: z.number().min(0).max(1).default(0).describe("Budget as a fraction of the model's context length when known (0 = off)"),
    max_cost_usd: z.number().min(0).default(0).describe('Most USD the prompt of one request may cost (0 = off; needs pricing)'),
    algorithm: z.enum(['recency', 'greedy', 'dependency', 'prefix_cache']).default(engine.algorithm).describe('How messages are chosen: recency-biased, greedy by weight, dependency-aware, or prefix-cache-optimized'),
    weighting: z.enum(['smart', 'keyword', 'static', 'composite']).default(engine.weighting).describe('How messages are scored against the current query'),
    recency_factor: z.number().min(0).default(engine.recencyFactor).describe('Recency boost: the newest message weighs (1 + factor) times the oldest'),
    recent: z.number().int().min(0).default(engine.recent).describe('The last N messages are always kept'),
    tool_penalty: z.number().min(0).max(1).default(engine.toolPenalty).describe('Scoring factor for tool calls and tool results'),
    pair_coherence: z.number().min(0).max(1).default(engine.pairCoherence).describe('An answer keeps this share of its question’s score'),
    allow_full: z.boolean().default(true).describe('Let users send the whole history with !full (it lifts every budget, cost included, for that turn)'),
    min_chat_messages: z.number().int().min(0).default(engine.minChatMessages).describe('Never send fewer chat messages than this'),
    role_alternation: z.enum(['any', 'strict']).default('any').describe('strict: merge adjacent user (or assistant) messages left by trimming, for models whose chat template requires alternating roles'),
    show_context_note: z.boolean().default(false).describe('Append a line under each reply saying how much of the conversation the model saw'),
    ...summaryValves,
  }),
  userValves: z.object({
    max_tokens: z.number().int().min(0).nullable().default(null).describe('Your own token budget (lower than the admin’s; empty = the admin’s)'),
    recent: z.number().int().min(0).nullable().default(null).describe('Your own number of recent messages always kept (empty = the admin’s)'),
    default_flags: z.string().default('').describe('Flags applied to every chat of yours, e.g. "+nosum,recent=6"'),
    show_context_note: z.enum(['default', 'on', 'off']).default('default').describe('A line under each reply saying how much of the conversation the model saw (default = the admin’s choice)'),
  }),

  async inlet({ body, valves, userValves, flags, state, services, logger, signal, deadline: hookDeadline }) {
    const metadata = (body.metadata ?? {}) as { task?: unknown };
    if (metadata.task) return body; // Open WebUI background tasks (titles, tags) pass untouched.
    if (!Array.isArray(body.messages) || body.messages.length === 0) return body;
    const messages = stripContextNotes(body.messages) as unknown[];
    const model = typeof body.model === 'string' ? body.model : undefined;
    const options = contextOptions(valves, userValves, flags);
    // `!weight=F` attaches to the message that carries it and keeps counting on later turns.
    const messageWeights = await rememberWeight({ messages: messages as Message[], weight: flags.get('weight'), chatKey: flags.chatKey, state, logger });
    if (messageWeights) options.messageWeights = messageWeights;
    const sequenceKey = `seq:${flags.chatKey}`;
    // Only prefix_cache reads the sequence sent last time; other algorithms skip the store round trips.
    const tracksPrefix = Boolean(flags.chatKey) && options.algorithm === 'prefix_cache';
    const previousSequence = tracksPrefix ? await state.get<string[]>(sequenceKey).catch(() => undefined) : undefined;
    const correction = model ? await services.corrections?.get(model).catch(() => undefined) : undefined;
    const input: PlanInput = { messages, model, options, marks: flags.marks, keepTags: keepTags(flags), previousSequence, tokenCache, pricing: services.pricing, correction };
    const client = clientFor(pool, valves);
    const warn = (fields: Record<string, unknown>, message: string) => logger.warn(fields, message);
    let scoring: { used: string[]; failed: number } | undefined;
    if (client && valves.scoring !== 'none') {
      const probe = planContext(input).plan;
      if (probe.budget.targetTokens > 0 && probe.tokensBefore > probe.budget.targetTokens) {
        const scored = await externalScores({ scorers: scorersFor(client, valves, state), messages, ids: messageIds(messages as Message[]), query: lastUserText(messages), timeoutMs: valves.scoring_timeout_ms, signal });
        if (scored.failed.length) logger.warn({ failed: scored.failed }, 'model-assisted scoring failed; keyword scoring used for it');
        if (scored.scores) input.options = { ...options, weighting: 'composite', externalWeight: valves.scoring_weight };
        input.externalScores = scored.scores;
        scoring = { used: scored.used, failed: scored.failed.length };
      }
    }
    const compression = client && options.summarize ? compressionFor(client, valves, state, warn) : undefined;
    // One deadline for all summarizing of this inlet (retries included), ending before the host's hook timeout:
    // a slow model falls back to dropping instead of a 504.
    const summaryMs = Math.max(100, Math.min(valves.summary_timeout_ms, hookDeadline - Date.now() - 1000));
    const deadline = AbortSignal.any([signal, AbortSignal.timeout(summaryMs)]);
    if (compression && flags.chatKey) await runner?.settle(flags.chatKey, summaryMs / 2);
    const context = await planAndCompress(input, compression, { correction, signal: deadline });
    const { plan } = context.result;
    if (tracksPrefix) {
      await state.set(sequenceKey, context.result.sequence, { ttlMs: SEQUENCE_TTL_MS }).catch((error: Error) => logger.warn({ err: error.message }, 'could not save the sequence sent (prefix reuse degrades)'));
    }
    if (flags.chatKey && contextNoteEnabled(valves.show_context_note, userValves.show_context_note)) {
      const note = contextNoteOf(plan, context.outcome ? context.outcome.tokensAfter : plan.tokensAfter, context.outcome?.summarized ?? 0);
      await state.set(contextNoteKey(flags.chatKey, messages), note, { ttlMs: CONTEXT_NOTE_TTL_MS }).catch((error: Error) => logger.warn({ err: error.message }, 'could not save the context note'));
    }
    const counts = { keep: 0, pinned: 0, summarize: 0, drop: 0 };
    for (const entry of plan.entries) counts[entry.disposition]++;
    const outcome = context.outcome;
    const receipts = outcome?.receipts.map((receipt) => ({ messages: receipt.ids.length, checked: receipt.checked, missing: receipt.missing.length, action: receipt.action }));
    logger.debug({ runId: plan.runId, entries: plan.entries, notes: plan.notes, budget: plan.budget, facts: outcome?.receipts.map((receipt) => receipt.missing) }, 'context plan');
    logger.info(
      {
        runId: plan.runId, model, algorithm: plan.algorithm, before: plan.tokensBefore, after: outcome ? outcome.tokensAfter : plan.tokensAfter, limit: plan.budget.limitTokens, overBudget: plan.overBudget, ...counts, flags: flags.effective, source: flags.source,
        ...(outcome ? { summary: { level: outcome.level, summarized: outcome.summarized, dropped: outcome.dropped, calls: outcome.calls, cacheHits: outcome.cacheHits, tokens: outcome.blockTokens, truncated: outcome.truncated, keptSources: context.keptSources.length }, receipts, notes: plan.notes } : {}),
        ...(scoring ? { scoring } : {}),
      },
      'context planned',
    );
    return { ...body, messages: context.messages };
  },

  async outlet({ body, valves, userValves, flags, state, services, logger }) {
    const lines: string[] = [];
    if (flags.notices.length) lines.push(`⚠ ${flags.notices.join(' · ')}`);
    if (flags.get('flags') === true) lines.push(describeFlags(flags));
    if (flags.chatKey && Array.isArray(body.messages) && contextNoteEnabled(valves.show_context_note, userValves.show_context_note)) {
      const stored = await state.get(contextNoteKey(flags.chatKey, body.messages)).catch(() => undefined);
      const note = contextNoteSchema.safeParse(stored);
      if (note.success) lines.push(formatContextNote(note.data));
    }
    const out = lines.length ? appendToReply(body, lines.join('\n')) : body;
    const options = contextOptions(valves, userValves, flags);
    const client = clientFor(pool, valves, 'background');
    if (valves.ahead_of_time && client && options.summarize && !options.full && flags.chatKey && Array.isArray(out.messages) && out.messages.length > 1) {
      runner ??= new AheadOfTimeRunner({ maxConcurrent: valves.summary_concurrency * 2, timeoutMs: valves.ahead_of_time_timeout_ms, onError: (error) => logger.warn({ err: error.message }, 'ahead-of-time summary failed') });
      const model = typeof out.model === 'string' ? out.model : undefined;
      const compression = compressionFor(client, valves, state, (fields, message) => logger.warn(fields, message));
      compression.settings.warm = true;
      const messages = nextTurnMessages(out.messages);
      const started = await runner.schedule(state, flags.chatKey, async (signal) => {
        const previousSequence = await state.get<string[]>(`seq:${flags.chatKey}`).catch(() => undefined);
        const correction = model ? await services.corrections?.get(model).catch(() => undefined) : undefined;
        const context = await planAndCompress({ messages, model, options, marks: flags.marks, keepTags: keepTags(flags), previousSequence, tokenCache, pricing: services.pricing, correction }, compression, { correction, signal });
        logger.info({ summarized: context.outcome?.summarized ?? 0, calls: context.outcome?.calls ?? 0, cacheHits: context.outcome?.cacheHits ?? 0 }, 'ahead-of-time summaries ready');
      });
      logger.debug({ started }, 'ahead-of-time summaries');
    }
    return out;
  },

  async onShutdown() {
    await runner?.close();
    runner = undefined;
    await pool.close();
  },
});
