import { type EngineOptions, type Plan, TRIM_DEFAULTS } from '../../domain/engine/index.js';
import type { ActiveFlags } from '../../domain/flags/types.js';
import type { ContextUserValves as UserValves, ContextValves } from './context-valves.js';
import { budgetSource } from './runs/budget-source.js';

/** The admin valves `contextOptions` reads (the schema's type: one source of truth). */
export type { ContextValves };
/** What a single user may choose for themselves: `max_tokens` null or 0 = the admin's budget; `recent` null = the admin's value (0 keeps none). */
export type ContextUserValves = Pick<UserValves, 'max_tokens' | 'recent'>;

const positive = (value: number | null | undefined) => (typeof value === 'number' && value > 0 ? value : undefined);

/** True when the valves name a summarizer (base URL and model). */
export function summarizerConfigured(valves: Pick<ContextValves, 'summary_base_url' | 'summary_model'>): boolean {
  return Boolean(valves.summary_base_url.trim() && valves.summary_model.trim());
}

/**
 * Engine options for one request: admin valves, then the user's own valves (a user may
 * only lower `max_tokens`), then this chat's flags (`!full`, `!nosum`, `!target`,
 * `!context`, `!recent`, `!tool_penalty`, `!pair_coherence`). Summaries are on when a
 * summarizer is configured and the chat has no `!nosum`.
 */
export function contextOptions(
  valves: ContextValves,
  user: ContextUserValves,
  flags: ActiveFlags,
): Partial<EngineOptions> {
  const adminMax = valves.max_tokens;
  const userMax = positive(user.max_tokens);
  const maxTokens = userMax !== undefined ? (adminMax > 0 ? Math.min(adminMax, userMax) : userMax) : adminMax;
  const options: Partial<EngineOptions> = {
    maxTokens,
    targetTokens: positive(valves.target_tokens),
    contextFraction: positive(valves.context_fraction),
    maxCostUsd: positive(valves.max_cost_usd),
    algorithm: valves.algorithm,
    weighting: valves.weighting,
    recencyFactor: valves.recency_factor,
    recent: user.recent ?? valves.recent,
    toolPenalty: valves.tool_penalty,
    pairCoherence: valves.pair_coherence,
    minChatMessages: valves.min_chat_messages,
    roleAlternation: valves.role_alternation ?? 'any',
  };
  // Trimming long messages: only what differs from the engine's defaults (the options are hashed into the run id).
  if (valves.trim_tool_results === false) options.trimToolResults = false;
  if (valves.trim_long_messages === true) options.trimLongMessages = true;
  if (valves.trim_min_tokens !== undefined && valves.trim_min_tokens !== TRIM_DEFAULTS.trimMinTokens)
    options.trimMinTokens = valves.trim_min_tokens;
  const excluded = (valves.trim_exclude_tools ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (excluded.length > 0) options.trimExcludeTools = excluded;
  // Below summary_min_budget a summary's reserve crowds out more than it saves (recall benchmark): drop instead.
  const roomForSummary = !(maxTokens > 0 && maxTokens < (valves.summary_min_budget ?? 0));
  if (summarizerConfigured(valves) && roomForSummary) {
    options.summarize = true;
    options.summaryRatio = valves.summary_ratio;
    options.summaryMaxTokens = valves.summary_max_tokens;
  }
  const number = (key: string) => {
    const value = flags.get(key);
    return typeof value === 'number' ? value : undefined;
  };
  // `!full` lifts every budget for one turn, unless the admin forbids it (`allow_full`).
  if (flags.get('full') === true && valves.allow_full !== false) options.full = true;
  // Without `allow_full` nothing a user sets lifts the budget: their pins, tags and recent messages past the
  // admin's `recent` are kept only while they fit it.
  if (valves.allow_full === false) options.capForced = true;
  if (flags.get('nosum') === true) options.summarize = false;
  options.targetTokens = number('target') ?? options.targetTokens;
  options.contextTurns = number('context');
  options.recent = number('recent') ?? options.recent;
  options.toolPenalty = number('tool_penalty') ?? options.toolPenalty;
  options.pairCoherence = number('pair_coherence') ?? options.pairCoherence;
  if (options.capForced) options.guaranteedRecent = Math.min(options.recent ?? valves.recent, valves.recent);
  return options;
}

/** Where a value a user chose came from, for the status line. */
function recentOrigin(user: ContextUserValves, flags: ActiveFlags): string | undefined {
  const value = flags.get('recent');
  if (typeof value === 'number') {
    if (flags.temporary.recent !== undefined) return `recent=${value}`;
    if (flags.persistent.recent !== undefined) return `+recent=${value}`;
    return `recent=${value} (your default flags)`;
  }
  return typeof user.recent === 'number' ? `recent=${user.recent} (your valves)` : undefined;
}

const tokensText = (value: number) => Math.round(value).toLocaleString('en-US');

/**
 * The status line's words for what the admin's budget held back of what the user set (`allow_full` off):
 * `recent=1000 capped to the admin's budget of 500 tokens`, with pins, keep tags and a refused `!full`;
 * undefined when nothing was held back.
 */
export function cappedText(
  plan: Pick<Plan, 'capped' | 'budget'>,
  valves: ContextValves,
  user: ContextUserValves,
  flags: ActiveFlags,
): string | undefined {
  if (valves.allow_full !== false) return undefined;
  const limit = plan.capped?.limitTokens ?? plan.budget.limitTokens;
  if (!(limit > 0)) return undefined;
  const parts: string[] = [];
  if (flags.get('full') === true) parts.push('full');
  const capped = plan.capped;
  if (capped?.recent) parts.push(recentOrigin(user, flags) ?? `recent=${capped.recent.asked}`);
  if (capped?.pinned) parts.push(`${capped.pinned} pinned message${capped.pinned === 1 ? '' : 's'}`);
  if (capped?.tagged) parts.push(`${capped.tagged} tagged message${capped.tagged === 1 ? '' : 's'}`);
  if (parts.length === 0) return undefined;
  const source = budgetSource(plan.budget, valves, user, flags);
  const whose = source === 'user valve' ? 'your budget' : "the admin's budget";
  const costNote = source === 'cost' ? ` (max_cost_usd ${valves.max_cost_usd})` : '';
  return `${parts.join(', ')} capped to ${whose} of ${tokensText(limit)} tokens${costNote}`;
}
