import { z } from 'zod';
import { secret } from '../../../runtime/host/secret-valves.js';

/** Valves of the context filter for summaries and model-assisted scoring (merged into its valve schema). */
export const summaryValves = {
  summary_base_url: z
    .string()
    .default('')
    .describe(
      'OpenAI-compatible API base of the summarizer, e.g. https://api.openai.com/v1, https://openrouter.ai/api/v1, http://localhost:11434/v1 (empty = no summaries: over-budget messages are dropped)',
    ),
  summary_api_key: secret(z.string().default('')).describe(
    'API key of the summarizer (empty for local servers); never logged, masked when read back',
  ),
  summary_model: z.string().default('').describe('Model that writes summaries and relevance labels, e.g. gpt-4o-mini'),
  summary_extra_body: z
    .string()
    .default('')
    .describe('JSON object merged into every chat request, e.g. {"provider":{"sort":"price"}}'),
  summary_ratio: z.number().min(0.05).max(1).default(0.3).describe('Summary size as a share of the summarized tokens'),
  summary_max_tokens: z.number().int().min(32).default(2048).describe('Largest summary block, in tokens'),
  summary_min_budget: z
    .number()
    .int()
    .min(0)
    .default(1500)
    .describe(
      'Summarize only when the token budget is at least this (smaller budgets drop: the summary would crowd out kept messages)',
    ),
  summary_level_turn: z.boolean().default(true).describe('Allow per-turn summaries (few messages over budget)'),
  summary_level_segment: z.boolean().default(true).describe('Allow segment summaries (groups of 4 turns)'),
  summary_level_conversation: z
    .boolean()
    .default(true)
    .describe('Allow one summary of the whole older conversation (most of it over budget)'),
  fact_receipt: z
    .enum(['append', 'keep_source', 'report'])
    .default('append')
    .describe(
      'Facts (numbers, dates, names, ids) a summary lost: append them to it, keep the source message instead, or only report them',
    ),
  ahead_of_time: z
    .boolean()
    .default(true)
    .describe(
      'After each reply, summarize in the background what the next request will need, so it finds the summary cached',
    ),
  summary_cache_ttl_hours: z
    .number()
    .min(0)
    .default(168)
    .describe('How long summaries, labels and embeddings stay cached (0 = forever)'),
  summary_timeout_ms: z
    .number()
    .int()
    .min(100)
    .default(20000)
    .describe('Deadline of one summarizer call, and of all summarizing in one request (retries included), ms'),
  summary_retries: z
    .number()
    .int()
    .min(0)
    .max(5)
    .default(2)
    .describe('Retries on 429/5xx/network errors (Retry-After honoured, at most 10 s)'),
  summary_concurrency: z.number().int().min(1).max(32).default(4).describe('Model calls in flight at once'),
  ahead_of_time_timeout_ms: z
    .number()
    .int()
    .min(1000)
    .default(120000)
    .describe('Deadline of one background summarizing job, ms'),
  scoring: z
    .enum(['none', 'embedding', 'llm', 'embedding+llm'])
    .default('none')
    .describe('Model-assisted relevance blended with keyword scoring: embedding similarity, LLM labels, or both'),
  scoring_weight: z
    .number()
    .min(0)
    .max(1)
    .default(0.7)
    .describe('Share of the model-assisted scores in the blend (the rest is keyword/smart scoring)'),
  embedding_share: z
    .number()
    .min(0)
    .max(1)
    .default(0.5)
    .describe('With embedding+llm: share of embeddings among the model-assisted scores'),
  embedding_model: z
    .string()
    .default('')
    .describe('Embedding model, e.g. text-embedding-3-small (empty = summary_model)'),
  scoring_timeout_ms: z
    .number()
    .int()
    .min(100)
    .default(3000)
    .describe('Deadline of model-assisted scoring; on timeout or error keyword scoring is used'),
  analyzer_window: z
    .number()
    .int()
    .min(1)
    .max(200)
    .default(24)
    .describe('LLM labels: the last N chat messages are labelled (others score 0.5)'),
};

/** The values of `summaryValves`. */
export type SummaryValves = { [K in keyof typeof summaryValves]: z.infer<(typeof summaryValves)[K]> };
