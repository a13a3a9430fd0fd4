import { z } from 'zod';
import { FilterError } from '../../core/errors/filter-error.js';
import { defineFilter } from '../../runtime/host/define-filter.js';
import { baseValves, type FilterEvent, type HostServices } from '../../runtime/host/types.js';
import {
  capMessage,
  capReached,
  effectiveCaps,
  nearCapStatus,
  noRoomMessage,
  type EffectiveCap,
} from '../../domain/usage/spend-caps.js';
import { periodKey } from '../../domain/usage/budget-periods.js';
import { decimalOf, formatDecimal, parseDecimal } from '../../domain/pricing/decimal.js';
import { inletReservationId, type HoldOutcome, type SpendHolds } from '../../domain/usage/spend-reservations.js';
import { inletHoldChat } from '../../domain/usage/spend-reservations.js';
import type { Logger } from '../../core/util/logger.js';
import { coverUnpriced, estimateRequestCost, requestedMaxTokens } from './estimate-request-cost.js';
import { RecentCompletions } from './recent-completions.js';
import { LearnedCosts } from './learned-costs.js';
import { OutageNotice } from '../../core/util/outage-notice.js';
import { isRecord } from '../../core/messages/chat-message.js';

/** One cap pair; strict, so a misspelt key (`monthly`) is refused by name instead of saving both caps as null. */
const capPair = z.strictObject({
  daily_usd: z.number().min(0).nullable().default(null).describe('Daily cap in USD (null = inherit, 0 = none)'),
  monthly_usd: z.number().min(0).nullable().default(null).describe('Monthly cap in USD (null = inherit, 0 = none)'),
});

/** A group's caps: shared by its members, and per member; strict like capPair. */
const groupCaps = z.strictObject({
  daily_usd: z.number().min(0).nullable().default(null).describe("The group's daily cap in USD, shared by its members"),
  monthly_usd: z
    .number()
    .min(0)
    .nullable()
    .default(null)
    .describe("The group's monthly cap in USD, shared by its members"),
  member_daily_usd: z
    .number()
    .min(0)
    .nullable()
    .default(null)
    .describe('Daily cap in USD of each member (null = inherit, 0 = none)'),
  member_monthly_usd: z
    .number()
    .min(0)
    .nullable()
    .default(null)
    .describe('Monthly cap in USD of each member (null = inherit, 0 = none)'),
});

/** A model pattern's caps, shared by everyone using a matching model or by one group's members; strict. */
const modelCaps = z.strictObject({
  daily_usd: z.number().min(0).nullable().default(null).describe('Daily cap in USD on the matching models'),
  monthly_usd: z.number().min(0).nullable().default(null).describe('Monthly cap in USD on the matching models'),
  group: z.string().min(1).nullable().default(null).describe("Only this group's members (null = everyone)"),
});

/** Options of the spend-limit filter (tests inject the clock). */
export interface SpendLimitOptions {
  now?: () => number;
}

/**
 * Spend limits: daily and monthly USD caps per user (defaults), per role, per group member and per user
 * (overrides by id or email), per Open WebUI group (shared by its members) and per model pattern (shared by everyone or
 * one group's members), read from the ledger the accounting filter writes (see effectiveCaps for the precedence). The inlet
 * reserves: it estimates the request's cost (estimateRequestCost; a model without a price at its
 * learned cost per token, LearnedCosts, else `unpriced_estimate_usd`) and, in one atomic step of
 * the store (`services.spend`), admits it only when every cap has room for recorded spend + the
 * user's requests in flight + this estimate, holding the estimate until the reply is recorded
 * (the accounting outlet or the openai-proxy releases it) or `reservation_timeout_s` passes.
 * Otherwise HTTP 429 with a message the user understands. Near a cap (`warn_fraction`) the inlet
 * reports a status line. Admins are exempt by default; Open WebUI background tasks (titles, tags)
 * are never blocked and hold nothing. A host without the spend service checks recorded spend only.
 */
export function createSpendLimitFilter(options: SpendLimitOptions = {}) {
  const now = options.now ?? Date.now;
  const outage = new OutageNotice('the ledger (spend limits)');
  const recent = new RecentCompletions();
  const learned = new LearnedCosts();
  return defineFilter({
    name: 'Spend Limits',
    valves: baseValves.extend({
      priority: z
        .number()
        .int()
        .default(-50)
        .describe('Filters run in ascending priority; early, so a blocked request costs nothing.'),
      daily_limit_usd: z
        .number()
        .min(0)
        .default(0)
        .describe('Daily cap per user in USD (0 = none); resets at 00:00 UTC'),
      monthly_limit_usd: z
        .number()
        .min(0)
        .default(0)
        .describe('Monthly cap per user in USD (0 = none); resets on the 1st, 00:00 UTC'),
      role_limits: z
        .record(z.string(), capPair)
        .default({})
        .describe('Caps per Open WebUI role, e.g. {"user": {"monthly_usd": 20}}'),
      user_limits: z
        .record(z.string(), capPair)
        .default({})
        .describe('Caps per user id or email, overriding role and default, e.g. {"ann@example.com": {"daily_usd": 5}}'),
      group_limits: z
        .record(z.string(), groupCaps)
        .default({})
        .describe(
          'Caps per Open WebUI group name or id: shared by its members and per member, e.g. {"Research": {"monthly_usd": 200, "member_daily_usd": 2}}',
        ),
      model_limits: z
        .record(z.string(), modelCaps)
        .default({})
        .describe(
          'Caps per model id or pattern (* any characters, ? one), for everyone or one group, e.g. {"openai/gpt-5*": {"daily_usd": 10}}',
        ),
      group_members: z
        .record(z.string(), z.array(z.string()))
        .default({})
        .describe(
          'Members (user ids or emails) of each group, used when a request carries no groups, e.g. {"Research": ["ann@example.com"]}',
        ),
      exempt_roles: z.array(z.string()).default(['admin']).describe('Roles never limited'),
      reservation_timeout_s: z
        .number()
        .int()
        .min(1)
        .default(600)
        .describe(
          "Seconds an admitted request's estimated cost stays held against the caps when no reply is recorded (aborted replies, callers without an outlet)",
        ),
      expected_completion_tokens: z
        .number()
        .int()
        .min(0)
        .default(1000)
        .describe('Completion tokens expected when the request sets no max_tokens and the user has no recent replies'),
      unpriced_estimate_usd: z
        .number()
        .min(0)
        .default(0)
        .describe(
          'USD held for a request to a model without a price that has no recorded reply with a reported cost yet (0 = hold nothing)',
        ),
      warn_fraction: z
        .number()
        .min(0)
        .max(1)
        .default(0.8)
        .describe('Show a status line when a cap is this much used after admitting a request (0 = never)'),
    }),

    async inlet({ body, user, valves, services, logger, emit, requestId }) {
      const task = isRecord(body.metadata) ? body.metadata.task : undefined;
      if (task || !user?.id) return body; // Tasks count (accounting records them) but are never blocked.
      if (user.role && valves.exempt_roles.includes(user.role)) return body;
      const at = now();
      const caps = effectiveCaps(valves, user, at, typeof body.model === 'string' ? body.model : undefined);
      if (caps.length === 0) return body;
      if (services.spend) {
        const withSpend = { ...services, spend: services.spend };
        await reserve({ body, userId: user.id, caps, at, valves, services: withSpend, logger, emit, requestId });
        return body;
      }
      if (!services.ledger) {
        logger.warn('spend-limit: no ledger service; caps cannot be enforced');
        return body;
      }
      for (const cap of caps) {
        const { ledger } = services;
        let spent: string;
        try {
          // One counter read per cap (the user's or the scope's spend of this UTC day or month), whatever the ledger's size.
          if (cap.scope && !ledger.scopeSpent) continue; // a ledger without scope counters: the user's caps only
          spent = cap.scope
            ? await ledger.scopeSpent!(cap.scope, cap.period.from, cap.period.to)
            : await ledger.spent(user.id, cap.period.from, cap.period.to);
          outage.recovered(logger);
        } catch (error) {
          outage.failed(logger, error, 'spend-limit: ledger unavailable; letting requests through');
          return body;
        }
        if (capReached(cap, spent)) {
          logger.info({ user: user.id, period: cap.period.kind, spent }, 'spend-limit: cap reached');
          throw new FilterError(429, capMessage(cap), { code: 'ERR_SPEND_LIMIT' });
        }
      }
      return body;
    },
  });

  /** Hold the request's estimated cost against every cap, atomically; 429 when a cap has no room for it. */
  async function reserve(args: {
    body: Record<string, unknown>;
    userId: string;
    caps: EffectiveCap[];
    at: number;
    valves: {
      reservation_timeout_s: number;
      expected_completion_tokens: number;
      warn_fraction: number;
      unpriced_estimate_usd: number;
    };
    services: HostServices & { spend: SpendHolds };
    logger: Logger;
    emit: (event: FilterEvent) => void;
    requestId: string;
  }): Promise<void> {
    const { body, userId, caps, at, valves, services, logger } = args;
    // Without max_tokens, the user's recent median completion (read when needed, never fails: undefined instead).
    const median =
      requestedMaxTokens(body) === undefined && services.ledger
        ? await recent.median(services.ledger, userId, at)
        : undefined;
    const priced = estimateRequestCost({
      body,
      pricing: services.pricing,
      at,
      recentMedian: median,
      fallbackCompletionTokens: valves.expected_completion_tokens,
    });
    // A model without a price: what its recorded replies cost per token (read when needed, never fails), else the valve.
    const learnedRate =
      priced.costRule === 'none' && services.ledger && typeof body.model === 'string'
        ? await learned.rate(services.ledger, body.model, at)
        : undefined;
    const estimate = coverUnpriced(priced, { learnedRate, fallbackUsd: valves.unpriced_estimate_usd });
    let outcome: HoldOutcome;
    try {
      outcome = await services.spend.reserve({
        userId,
        id: inletReservationId(body, args.requestId),
        ...inletHoldChat(body),
        amount: estimate.cost,
        caps: caps.map((cap) => ({
          period: periodKey(cap.period.kind, at),
          limit: formatDecimal(cap.limit),
          ...(cap.scope ? { scope: cap.scope } : {}),
        })),
        now: at,
        expiresAt: at + valves.reservation_timeout_s * 1000,
      });
      outage.recovered(logger);
    } catch (error) {
      outage.failed(logger, error, 'spend-limit: ledger unavailable; letting requests through');
      return;
    }
    // What each cap has in use: its period's recorded spend + the holds it counts (the user's, or all its scope's
    // members'), this one included when admitted.
    const held = decimalOf(outcome.held);
    const inUse = caps.map(
      (_, index) =>
        (parseDecimal(outcome.spent[index]) ?? 0n) +
        (outcome.scopeHeld ? (parseDecimal(outcome.scopeHeld[index]) ?? 0n) : held),
    );
    if (!outcome.admitted) {
      const index = outcome.blockedBy ?? 0;
      const cap = caps[index]!;
      const { spent } = outcome;
      logger.info(
        {
          user: userId,
          period: cap.period.kind,
          ...(cap.scope ? { scope: cap.scope } : {}),
          spent: spent[index],
          held: outcome.scopeHeld?.[index] ?? outcome.held,
          estimate: estimate.cost,
        },
        'spend-limit: no room under the cap',
      );
      throw new FilterError(429, noRoomMessage(cap, inUse[index]!, decimalOf(estimate.cost)), {
        code: 'ERR_SPEND_LIMIT',
      });
    }
    logger.debug(
      {
        user: userId,
        estimate: estimate.cost,
        cost: estimate.costRule,
        completion: estimate.completionRule,
        held: outcome.held,
      },
      'spend-limit: estimate held',
    );
    const nearest = nearestCap(caps, inUse, valves.warn_fraction);
    if (nearest)
      args.emit({ type: 'status', data: { description: nearCapStatus(nearest.cap, nearest.used), done: true } });
  }
}

/** The cap with the largest share in use, when that share is at least `fraction` (0 = never). */
function nearestCap(
  caps: readonly EffectiveCap[],
  inUse: readonly bigint[],
  fraction: number,
): { cap: EffectiveCap; used: bigint } | undefined {
  if (fraction <= 0) return undefined;
  let nearest: { cap: EffectiveCap; used: bigint; share: number } | undefined;
  for (const [index, cap] of caps.entries()) {
    const used = inUse[index]!;
    const share = Number((used * 1_000_000n) / cap.limit) / 1_000_000;
    if (share >= fraction && (!nearest || share > nearest.share)) nearest = { cap, used, share };
  }
  return nearest;
}
