import { baseValves, defineFilter, appendToReply, z } from '../src/sdk.js';
import { LruTokenCache, messageIds, planContext } from '../src/engine/index.js';
import { contextOptions } from '../src/filters/context-options.js';
import { describeFlags, keepTags } from '../src/flags/index.js';

/** Token counts survive across requests in this process; ids are content hashes, so a message is tokenized once. */
const tokenCache = new LruTokenCache(200_000);
const SEQUENCE_TTL_MS = 7 * 86_400_000;

type Message = { role?: unknown };

/**
 * The context filter: on every inlet, scores the history against the current query and
 * keeps or drops messages under the token/cost budget (never splitting tool pairs, never
 * producing an order a provider rejects), obeying the chat's `!flags`. On outlet, answers
 * `!flags` with a line listing the chat's persistent flags, and reports rejected flag values.
 */
export default defineFilter({
  name: 'Context Budget',
  valves: baseValves.extend({
    max_tokens: z.number().int().min(0).default(16000).describe('Hard token budget for the whole prompt, system prompt included (0 = no limit)'),
    target_tokens: z.number().int().min(0).default(0).describe('Soft token target (0 = none)'),
    context_fraction: z.number().min(0).max(1).default(0).describe("Budget as a fraction of the model's context length when known (0 = off)"),
    max_cost_usd: z.number().min(0).default(0).describe('Most USD the prompt of one request may cost (0 = off; needs pricing)'),
    algorithm: z.enum(['recency', 'greedy', 'dependency', 'prefix_cache']).default('recency').describe('How messages are chosen: recency-biased, greedy by weight, dependency-aware, or prefix-cache-optimized'),
    weighting: z.enum(['smart', 'keyword', 'static', 'composite']).default('smart').describe('How messages are scored against the current query'),
    recency_factor: z.number().min(0).default(1.5).describe('Recency boost: the newest message weighs (1 + factor) times the oldest'),
    recent: z.number().int().min(0).default(4).describe('The last N messages are always kept'),
    tool_penalty: z.number().min(0).max(1).default(0.5).describe('Scoring factor for tool calls and tool results'),
    pair_coherence: z.number().min(0).max(1).default(0.8).describe('An answer keeps this share of its question’s score'),
    min_chat_messages: z.number().int().min(0).default(1).describe('Never send fewer chat messages than this'),
  }),
  userValves: z.object({
    max_tokens: z.number().int().min(0).nullable().default(null).describe('Your own token budget (lower than the admin’s; empty = the admin’s)'),
    recent: z.number().int().min(0).nullable().default(null).describe('Your own number of recent messages always kept (empty = the admin’s)'),
    default_flags: z.string().default('').describe('Flags applied to every chat of yours, e.g. "+nosum,recent=6"'),
  }),

  async inlet({ body, valves, userValves, flags, state, services, logger }) {
    const metadata = (body.metadata ?? {}) as { task?: unknown };
    if (metadata.task) return body; // Open WebUI background tasks (titles, tags) pass untouched.
    const messages = body.messages;
    if (!Array.isArray(messages) || messages.length === 0) return body;
    const model = typeof body.model === 'string' ? body.model : undefined;
    const options = contextOptions(valves, userValves, flags);
    const weight = flags.get('weight');
    if (typeof weight === 'number') {
      const ids = messageIds(messages as Message[]);
      const newestUser = (messages as Message[]).map((message) => message?.role).lastIndexOf('user');
      if (newestUser >= 0) options.messageWeights = { [ids[newestUser]!]: weight };
    }
    const sequenceKey = `seq:${flags.chatKey}`;
    const previousSequence = flags.chatKey ? await state.get<string[]>(sequenceKey).catch(() => undefined) : undefined;
    const correction = model ? await services.corrections?.get(model).catch(() => undefined) : undefined;
    const result = planContext({
      messages,
      model,
      options,
      marks: flags.marks,
      keepTags: keepTags(flags),
      previousSequence,
      tokenCache,
      pricing: services.pricing,
      correction,
    });
    const { plan } = result;
    if (flags.chatKey) {
      await state.set(sequenceKey, result.sequence, { ttlMs: SEQUENCE_TTL_MS }).catch((error: Error) => logger.warn({ err: error.message }, 'could not save the sequence sent (prefix reuse degrades)'));
    }
    const counts = { keep: 0, pinned: 0, summarize: 0, drop: 0 };
    for (const entry of plan.entries) counts[entry.disposition]++;
    logger.debug({ runId: plan.runId, entries: plan.entries, notes: plan.notes, budget: plan.budget }, 'context plan');
    logger.info(
      { runId: plan.runId, model, algorithm: plan.algorithm, before: plan.tokensBefore, after: plan.tokensAfter, limit: plan.budget.limitTokens, overBudget: plan.overBudget, ...counts, flags: flags.effective, source: flags.source },
      'context planned',
    );
    return { ...body, messages: result.messages };
  },

  outlet({ body, flags }) {
    const lines: string[] = [];
    if (flags.notices.length) lines.push(`⚠ ${flags.notices.join(' · ')}`);
    if (flags.get('flags') === true) lines.push(describeFlags(flags));
    return lines.length ? appendToReply(body, lines.join('\n')) : body;
  },
});
