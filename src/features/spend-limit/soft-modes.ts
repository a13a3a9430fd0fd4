/**
 * What happens past a cap's soft threshold (`soft_fraction` of the cap in use, recorded spend + requests in flight),
 * before the hard cap refuses: `warn` (the near-cap status line), `slow` (at most `slow_requests_per_minute` requests
 * per minute for that user, until the period resets or spend falls back under the threshold) or `cheaper` (the
 * request goes to the cheaper model the admin named for it in `cheaper_models`). The hard cap still refuses with its
 * 429 whatever the mode.
 */
import { z } from 'zod';
import type { PricingLookup } from '../../domain/pricing/types.js';
import type { EffectiveCap } from '../../domain/usage/spend-caps.js';

const mode = z.enum(['warn', 'slow', 'cheaper']);
export type SoftMode = z.infer<typeof mode>;

/** The soft-mode valves of the spend-limit filter. */
export const softModeValves = {
  soft_fraction: z
    .number()
    .min(0)
    .max(1)
    .nullable()
    .default(null)
    .describe("Share of a cap in use past which its soft mode applies (null = warn_fraction's value)"),
  soft_mode: z
    .union([mode, z.record(z.string(), mode)])
    .default('warn')
    .describe(
      'Past the soft threshold: "warn" (status line), "slow" (slow_requests_per_minute), "cheaper" (cheaper_models); one for every cap, or per cap kind, e.g. {"daily": "slow", "monthly": "cheaper"}',
    ),
  slow_requests_per_minute: z
    .number()
    .int()
    .min(1)
    .default(2)
    .describe('Requests per minute a user past a "slow" cap\'s soft threshold may send'),
  cheaper_models: z
    .record(z.string(), z.string().min(1))
    .default({})
    .describe(
      'The cheaper model for each model, used past a "cheaper" cap\'s soft threshold, e.g. {"openai/gpt-5": "openai/gpt-5-mini"}',
    ),
};

export interface SoftModeSettings {
  warn_fraction: number;
  soft_fraction: number | null;
  soft_mode: SoftMode | Record<string, SoftMode>;
  slow_requests_per_minute: number;
  cheaper_models: Record<string, string>;
}

/** The soft mode of `cap`: the valve's one mode, or the one named for the cap's kind (`daily`, `monthly`), else warn. */
export function softModeOf(settings: SoftModeSettings, cap: EffectiveCap): SoftMode {
  const chosen = settings.soft_mode;
  return typeof chosen === 'string' ? chosen : (chosen[cap.period.kind] ?? 'warn');
}

/** The threshold: `soft_fraction`, else `warn_fraction`. */
export function softFraction(settings: SoftModeSettings): number {
  return settings.soft_fraction ?? settings.warn_fraction;
}

/** Indexes of the caps at or past the soft threshold (0 = never), given what each has in use. */
export function pastSoftThreshold(caps: readonly EffectiveCap[], inUse: readonly bigint[], fraction: number): number[] {
  if (fraction <= 0) return [];
  const past: number[] = [];
  for (const [index, cap] of caps.entries()) {
    // used / limit >= fraction, in integers (fraction to a millionth).
    if (inUse[index]! * 1_000_000n >= cap.limit * BigInt(Math.round(fraction * 1_000_000))) past.push(index);
  }
  return past;
}

/** The connection prefix of a model id: the text before its last `/` (`openrouter.openai/gpt-5` → `openrouter.openai`). */
function connectionOf(model: string): string {
  const slash = model.lastIndexOf('/');
  return slash < 0 ? '' : model.slice(0, slash);
}

/** The cheaper model for `model`, or why there is none (for the log). */
export type CheaperChoice = { model: string } | { none: string };

/**
 * The model `cheaper_models` names for `model`, when it is reachable through the request's connection as far as
 * Eunoe can tell: it shares the requested id's provider prefix (the text before the last `/`; two ids without `/`
 * count as one connection) and the price table knows it, or a manifold id's upstream id (else its cost, and whether
 * it is cheaper, is unknown).
 * Whether the connection really serves it is the admin's word (list only models Open WebUI offers).
 */
export function cheaperModel(
  settings: Pick<SoftModeSettings, 'cheaper_models'>,
  model: unknown,
  pricing: PricingLookup | undefined,
): CheaperChoice {
  if (typeof model !== 'string') return { none: 'the request names no model' };
  const target = settings.cheaper_models[model];
  if (!target) return { none: `cheaper_models names no cheaper model for ${model}` };
  if (target === model) return { none: `cheaper_models maps ${model} to itself` };
  if (connectionOf(target) !== connectionOf(model))
    return { none: `${target} is not on the connection of ${model} (another provider prefix)` };
  // As the estimate prices it: the id, else a manifold's upstream id (`openai-proxy.gpt-4o-mini` → `gpt-4o-mini`).
  const priced = pricing?.resolve(target) ?? pricing?.resolve(target.slice(target.indexOf('.') + 1));
  if (!priced) return { none: `${target} has no price in the price table` };
  return { model: target };
}

/** The status line of a switch: "cheaper model: openai/gpt-5-mini instead of openai/gpt-5 (daily budget 85 % used)". */
export function switchedStatus(requested: string, served: string, cap: EffectiveCap, percent: number): string {
  return `cheaper model: ${served} instead of ${requested} (${cap.period.kind} budget ${percent} % used)`;
}

/** The slow-down's refusal, before "Try again in N s.". */
export function slowMessage(cap: EffectiveCap, percent: number, fraction: number): (limit: number) => string {
  return (limit) =>
    `Your ${cap.period.kind} budget is ${percent} % used: requests are slowed to ${limit} per minute until it resets or spend falls under ${Math.round(fraction * 100)} %.`;
}

/** The status line of a request the slow-down let through: "slowed down: 2 requests a minute (daily budget 85 % used)". */
export function slowStatus(cap: EffectiveCap, percent: number, settings: SoftModeSettings): string {
  return `slowed down: ${settings.slow_requests_per_minute} requests a minute (${cap.period.kind} budget ${percent} % used)`;
}
