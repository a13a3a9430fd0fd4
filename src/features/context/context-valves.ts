import { z } from 'zod';
import { summaryValves } from './compress/summary-valves.js';
import { runValves } from './runs/run-valves.js';
import { defaultEngineOptions, TRIM_DEFAULTS } from '../../domain/engine/index.js';
import { baseValves } from '../../runtime/host/types.js';

/** Valve defaults are the engine's defaults: what the benchmarks measure is what ships. */
const engine = defaultEngineOptions();

/** Admin valves of the context filter: the one schema its form, its types and its options come from. */
export const contextValves = baseValves.extend({
  max_tokens: z
    .number()
    .int()
    .min(0)
    .default(16000)
    .describe('Hard token budget for the whole prompt, system prompt included (0 = no limit)'),
  target_tokens: z.number().int().min(0).default(0).describe('Soft token target (0 = none)'),
  context_fraction: z
    .number()
    .min(0)
    .max(1)
    .default(0)
    .describe("Budget as a fraction of the model's context length when known (0 = off)"),
  max_cost_usd: z
    .number()
    .min(0)
    .default(0)
    .describe('Most USD the prompt of one request may cost (0 = off; needs pricing)'),
  algorithm: z
    .enum(['recency', 'greedy', 'dependency', 'prefix_cache', 'cache_stable'])
    .default(engine.algorithm)
    .describe(
      'How messages are chosen: recency-biased, greedy by weight, dependency-aware, prefix-cache-optimized, or cache-stable (a cached core plus messages picked for the question)',
    ),
  weighting: z
    .enum(['smart', 'keyword', 'static', 'composite'])
    .default(engine.weighting)
    .describe('How messages are scored against the current query'),
  recency_factor: z
    .number()
    .min(0)
    .default(engine.recencyFactor)
    .describe('Recency boost: the newest message weighs (1 + factor) times the oldest'),
  recent: z.number().int().min(0).default(engine.recent).describe('The last N messages are always kept'),
  tool_penalty: z
    .number()
    .min(0)
    .max(1)
    .default(engine.toolPenalty)
    .describe('Scoring factor for tool calls and tool results'),
  pair_coherence: z
    .number()
    .min(0)
    .max(1)
    .default(engine.pairCoherence)
    .describe('An answer keeps this share of its question’s score'),
  allow_full: z
    .boolean()
    .default(true)
    .describe(
      'Let users lift the budget: !full sends the whole history (every budget, cost included, for that turn), and their pins, keep tags and recent messages (flags, valves, default flags) are kept even past it. Off: the budget caps all of these',
    ),
  min_chat_messages: z
    .number()
    .int()
    .min(0)
    .default(engine.minChatMessages)
    .describe('Never send fewer chat messages than this'),
  role_alternation: z
    .enum(['any', 'strict'])
    .default('any')
    .describe(
      'strict: merge adjacent user (or assistant) messages left by trimming, for models whose chat template requires alternating roles',
    ),
  trim_tool_results: z
    .boolean()
    .default(TRIM_DEFAULTS.trimToolResults)
    .describe(
      "Over budget, cut a long tool result of an earlier turn to its head, the lines the question needs and its tail (a marker says how many lines were left out); the current turn's tool loop is never cut",
    ),
  trim_long_messages: z
    .boolean()
    .default(TRIM_DEFAULTS.trimLongMessages)
    .describe('The same for long user and assistant messages of earlier turns (pasted logs, files)'),
  trim_min_tokens: z
    .number()
    .int()
    .min(0)
    .default(TRIM_DEFAULTS.trimMinTokens)
    .describe('Messages of at most this many tokens are never cut (nor any under a quarter of the budget)'),
  trim_exclude_tools: z
    .string()
    .default('')
    .describe('Tools whose results are never cut, comma-separated (e.g. "execute_code,view_knowledge_file")'),
  echo_boost: z
    .boolean()
    .default(true)
    .describe(
      "What the model used counts: the names, numbers, ids and quoted strings a reply repeats raise the weight of the messages (and, in a trimmed tool result, the lines) they came from on the chat's next turns, halving every 3 turns",
    ),
  show_context_note: z
    .boolean()
    .default(false)
    .describe('Append a line under each reply saying how much of the conversation the model saw'),
  ...runValves,
  ...summaryValves,
});

/** Per-user valves of the context filter. */
export const contextUserValves = z.object({
  max_tokens: z
    .number()
    .int()
    .min(0)
    .nullable()
    .default(null)
    .describe('Your own token budget (lower than the admin’s; empty = the admin’s)'),
  recent: z
    .number()
    .int()
    .min(0)
    .nullable()
    .default(null)
    .describe('Your own number of recent messages always kept (empty = the admin’s)'),
  default_flags: z.string().default('').describe('Flags applied to every chat of yours, e.g. "+nosum,recent=6"'),
  show_context_note: z
    .enum(['default', 'on', 'off'])
    .default('default')
    .describe(
      'A line under each reply saying how much of the conversation the model saw (default = the admin’s choice)',
    ),
});

export type ContextValves = z.infer<typeof contextValves>;
export type ContextUserValves = z.infer<typeof contextUserValves>;
