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
  capPercent,
  capShare,
  type EffectiveCap,
  type ModelIds,
  type SpendCapValves,
} from '../../domain/usage/spend-caps.js';
import { periodKey } from '../../domain/usage/budget-periods.js';
import { decimalOf, formatDecimal, parseDecimal } from '../../domain/pricing/decimal.js';
import { inletReservationId, type HoldOutcome, type SpendHolds } from '../../domain/usage/spend-reservations.js';
import { inletHoldChat } from '../../domain/usage/spend-reservations.js';
import type { Logger } from '../../core/util/logger.js';
import type { PricingLookup } from '../../domain/pricing/types.js';
import { coverUnpriced, estimateRequestCost, pricedModelId, requestedMaxTokens } from './estimate-request-cost.js';
import { RecentCompletions } from './recent-completions.js';
import { LearnedCosts } from './learned-costs.js';
import { OutageNotice } from '../../core/util/outage-notice.js';
import { isRecord } from '../../core/messages/chat-message.js';
import type { PipelineUser } from '../../core/messages/request.js';
import type { ScopedState } from '../../state/scoped-state.js';
import { ALERT_EVENTS } from '../../domain/usage/spend-alerts.js';
import { isWebhookUrl, SpendAlerts } from './spend-alerts.js';
import { observeAlerts, type AlertValves } from './observe-alerts.js';
import { provided } from '../../runtime/host/service-registry.js';
import { modelSwitchesService } from '../../runtime/host/shipped-service-keys.js';
import { countRequest, rateLimitFor, rateLimitMessage, rateLimitsValve } from './rate-limits.js';
import {
  cheaperModel,
  pastSoftThreshold,
  slowMessage,
  slowStatus,
  softFraction,
  softModeOf,
  softModeValves,
  switchedStatus,
  type SoftModeSettings,
} from './soft-modes.js';

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
  /** The webhook alerts' queue (tests pass one with short retry delays and await its `settled()`). */
  alerts?: SpendAlerts;
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
 * reports a status line; past `soft_fraction` a cap's soft mode applies (soft-modes.ts: warn, slow down, or a cheaper
 * model). Before the caps, the request rate limits (`rate_limits`, rate-limits.ts). Admins are exempt by default; Open
 * WebUI background tasks (titles, tags) are never blocked and hold nothing. A host without the spend service checks
 * recorded spend only.
 * With `alert_webhook_url`, each reservation's outcome goes to the webhook alerts (spend-alerts.ts: in the
 * background, once per crossing per period).
 */
export function createSpendLimitFilter(options: SpendLimitOptions = {}) {
  const now = options.now ?? Date.now;
  const outage = new OutageNotice('the ledger (spend limits)');
  const recent = new RecentCompletions();
  const learned = new LearnedCosts();
  const alerts = options.alerts ?? new SpendAlerts();
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
      alert_webhook_url: z
        .string()
        .trim()
        .default('')
        .refine((url) => url === '' || isWebhookUrl(url), 'must be an http:// or https:// URL, or empty (no alerts)')
        .describe(
          'POST a JSON alert here when a cap crosses warn_fraction, its month-end projection, or the cap (once per crossing per period; empty = no alerts)',
        ),
      alert_on: z
        .array(z.enum(ALERT_EVENTS))
        .default([...ALERT_EVENTS])
        .describe('Which alerts to send: warn_threshold, projected_over_cap, cap_reached'),
      ...softModeValves,
      rate_limits: rateLimitsValve,
    }),

    /** Alerts still queued get up to 3 s to go out (a reload or a stop; a slow webhook cannot hold either longer). */
    async onShutdown() {
      await alerts.drain(3000);
    },

    async inlet({ body, user, valves, services, state, logger, emit, requestId }) {
      const task = isRecord(body.metadata) ? body.metadata.task : undefined;
      if (task || !user?.id) return body; // Tasks count (accounting records them) but are never blocked.
      if (user.role && valves.exempt_roles.includes(user.role)) return body;
      const at = now();
      await limitRate(state, user.id, user, valves.rate_limits, at, logger);
      const caps = effectiveCaps(valves, user, at, modelIdsOf(body, services.pricing, valves));
      if (caps.length === 0) return body;
      if (services.spend) {
        const withSpend = { ...services, spend: services.spend };
        return reserve({
          body,
          user: { ...user, id: user.id },
          caps,
          at,
          valves,
          services: withSpend,
          state,
          logger,
          emit,
          requestId,
        });
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

  /**
   * Hold the request's estimated cost against every cap, atomically; 429 when a cap has no room for it. Past a cap's
   * soft threshold its soft mode applies (soft-modes.ts). Answers the body to send on (its model switched in the
   * `cheaper` mode).
   */
  async function reserve(args: {
    body: Record<string, unknown>;
    user: PipelineUser & { id: string };
    caps: EffectiveCap[];
    at: number;
    valves: {
      reservation_timeout_s: number;
      expected_completion_tokens: number;
      unpriced_estimate_usd: number;
    } & SpendCapValves &
      SoftModeSettings &
      AlertValves;
    services: HostServices & { spend: SpendHolds };
    state: ScopedState;
    logger: Logger;
    emit: (event: FilterEvent) => void;
    requestId: string;
  }): Promise<Record<string, unknown>> {
    const { user, at, valves, services, logger } = args;
    const userId = user.id;
    let body = args.body;
    let caps = args.caps;
    const holdId = inletReservationId(body, args.requestId);
    const estimateOf = async (request: Record<string, unknown>) => {
      // Without max_tokens, the user's recent median completion (read when needed, never fails: undefined instead).
      const median =
        requestedMaxTokens(request) === undefined && services.ledger
          ? await recent.median(services.ledger, userId, at)
          : undefined;
      const priced = estimateRequestCost({
        body: request,
        pricing: services.pricing,
        at,
        recentMedian: median,
        fallbackCompletionTokens: valves.expected_completion_tokens,
      });
      // A model without a price: what its recorded replies cost per token (read when needed, never fails), else the valve.
      const learnedRate =
        priced.costRule === 'none' && services.ledger && typeof request.model === 'string'
          ? await learned.rate(services.ledger, request.model, at)
          : undefined;
      return coverUnpriced(priced, { learnedRate, fallbackUsd: valves.unpriced_estimate_usd });
    };
    const hold = (request: Record<string, unknown>, amount: string, holdCaps: readonly EffectiveCap[]) =>
      services.spend.reserve({
        userId,
        id: holdId,
        ...inletHoldChat(request),
        amount,
        caps: holdCaps.map((cap) => ({
          period: periodKey(cap.period.kind, at),
          limit: formatDecimal(cap.limit),
          ...(cap.scope ? { scope: cap.scope } : {}),
        })),
        now: at,
        expiresAt: at + valves.reservation_timeout_s * 1000,
      });
    let estimate = await estimateOf(body);
    let outcome: HoldOutcome;
    try {
      outcome = await hold(body, estimate.cost, caps);
      outage.recovered(logger);
    } catch (error) {
      outage.failed(logger, error, 'spend-limit: ledger unavailable; letting requests through');
      return body;
    }
    // What each cap has in use: its period's recorded spend + the holds it counts (the user's, or all its scope's
    // members'), this one included when admitted.
    const inUseOf = (answer: HoldOutcome) => {
      const held = decimalOf(answer.held);
      return caps.map(
        (_, index) =>
          (parseDecimal(answer.spent[index]) ?? 0n) +
          (answer.scopeHeld ? (parseDecimal(answer.scopeHeld[index]) ?? 0n) : held),
      );
    };
    let inUse = inUseOf(outcome);
    // The cheaper mode: past the soft threshold of a `cheaper` cap (or blocked by one), the request moves to the
    // cheaper model the admin named, when that one is reachable and cheaper, and holds its estimate instead.
    const fraction = softFraction(valves);
    const past = pastSoftThreshold(caps, inUse, fraction);
    const cheaperCap = outcome.admitted
      ? past.find((index) => softModeOf(valves, caps[index]!) === 'cheaper')
      : softModeOf(valves, caps[outcome.blockedBy ?? 0]!) === 'cheaper'
        ? (outcome.blockedBy ?? 0)
        : undefined;
    if (cheaperCap !== undefined) {
      const switched = await switchModel({
        ...args,
        userId,
        body,
        estimate,
        cheaperCap,
        inUse,
        outcome,
        estimateOf,
        hold,
        capsOf: (request) => effectiveCaps(valves, user, at, modelIdsOf(request, services.pricing, valves)),
      });
      if (switched) ({ body, estimate, outcome, caps } = switched);
      inUse = inUseOf(outcome);
    }
    observeAlerts(alerts, {
      valves,
      user,
      caps,
      spent: outcome.spent,
      inUse,
      at,
      logger,
      state: args.state,
      blockedBy: outcome.admitted ? undefined : (outcome.blockedBy ?? 0),
      ledger: services.ledger,
    });
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
    // The slow mode: past the soft threshold of a `slow` cap, at most slow_requests_per_minute requests a minute.
    const slowCap = pastSoftThreshold(caps, inUse, fraction).find(
      (index) => softModeOf(valves, caps[index]!) === 'slow',
    );
    if (slowCap !== undefined) {
      const cap = caps[slowCap]!;
      const percent = capPercent(cap, inUse[slowCap]!);
      try {
        await countRequest({
          state: args.state,
          kind: 'slow',
          userId,
          limit: valves.slow_requests_per_minute,
          now: at,
          refusal: slowMessage(cap, percent, fraction),
        });
        args.emit({ type: 'status', data: { description: slowStatus(cap, percent, valves), done: true } });
      } catch (error) {
        if (!(error instanceof FilterError)) {
          // The store cannot count: the request goes on (as when it cannot hold spend).
          logger.warn({ err: String(error) }, 'spend-limit: slow-down not counted (the state store failed)');
        } else {
          await services.spend.release(userId, [holdId]).catch(() => undefined); // refused: it holds nothing
          logger.info({ user: userId, period: cap.period.kind }, 'spend-limit: slowed down past the soft threshold');
          throw error;
        }
      }
    }
    const nearest = nearestCap(caps, inUse, valves.warn_fraction);
    if (nearest)
      args.emit({ type: 'status', data: { description: nearCapStatus(nearest.cap, nearest.used), done: true } });
    return body;
  }

  /**
   * Move the request to the cheaper model of `cheaper_models` (soft-modes.ts): release its hold, hold the cheaper
   * estimate, record the switch for the accounting outlet and say so in a status line. Undefined (nothing changed)
   * when there is no reachable cheaper model, it would not cost less, or the store fails.
   */
  async function switchModel(args: {
    body: Record<string, unknown>;
    estimate: Awaited<ReturnType<typeof coverUnpriced>>;
    cheaperCap: number;
    caps: EffectiveCap[];
    inUse: bigint[];
    outcome: HoldOutcome;
    estimateOf: (request: Record<string, unknown>) => Promise<Awaited<ReturnType<typeof coverUnpriced>>>;
    hold: (request: Record<string, unknown>, amount: string, caps: readonly EffectiveCap[]) => Promise<HoldOutcome>;
    /** The caps in force for a request (a model budget depends on its model). */
    capsOf: (request: Record<string, unknown>) => EffectiveCap[];
    userId: string;
    valves: SoftModeSettings;
    services: HostServices & { spend: SpendHolds };
    logger: Logger;
    emit: (event: FilterEvent) => void;
    requestId: string;
  }): Promise<
    | {
        body: Record<string, unknown>;
        estimate: Awaited<ReturnType<typeof coverUnpriced>>;
        outcome: HoldOutcome;
        caps: EffectiveCap[];
      }
    | undefined
  > {
    const { body, userId, services, logger } = args;
    const choice = cheaperModel(args.valves, body.model, services.pricing);
    if ('none' in choice) {
      logger.info({ user: userId, model: body.model }, `spend-limit: no cheaper model: ${choice.none}`);
      return undefined;
    }
    const requested = body.model as string;
    const cheaper = { ...body, model: choice.model };
    const estimate = await args.estimateOf(cheaper);
    if (decimalOf(estimate.cost) >= decimalOf(args.estimate.cost)) {
      logger.info(
        { user: userId, model: requested, to: choice.model },
        'spend-limit: the cheaper model would not cost less',
      );
      return undefined;
    }
    // The cheaper model is held against its own caps: a model budget on it holds the switched request too.
    const caps = args.capsOf(cheaper);
    let outcome: HoldOutcome;
    try {
      if (args.outcome.admitted) await services.spend.release(userId, [inletReservationId(body, args.requestId)]);
      outcome = await args.hold(cheaper, estimate.cost, caps);
      if (!outcome.admitted && args.outcome.admitted) {
        // No room for the cheaper model (its own budget is used up): the request goes on as it came, if it still fits.
        logger.info({ user: userId, model: requested, to: choice.model }, 'spend-limit: no room for the cheaper model');
        return {
          body,
          estimate: args.estimate,
          outcome: await args.hold(body, args.estimate.cost, args.caps),
          caps: args.caps,
        };
      }
    } catch (error) {
      outage.failed(logger, error, 'spend-limit: ledger unavailable; letting requests through');
      return undefined;
    }
    if (!outcome.admitted) return { body: cheaper, estimate, outcome, caps };
    const cap = args.caps[args.cheaperCap]!;
    const messageId = isRecord(body.metadata) ? body.metadata.message_id : undefined;
    const switches = provided(services, modelSwitchesService);
    if (switches && typeof messageId === 'string' && messageId)
      await switches
        .record(messageId, { requested, served: choice.model }, userId)
        .catch((error: unknown) =>
          logger.warn({ err: String(error) }, 'spend-limit: model switch not kept for the ledger'),
        );
    logger.info(
      { user: userId, model: requested, to: choice.model, period: cap.period.kind },
      'spend-limit: cheaper model',
    );
    // The cap that called for the switch, where it stands now (its original standing when the cheaper model is not
    // under it: a budget on the requested model).
    const index = caps.findIndex((each) => each.scope === cap.scope && each.period.kind === cap.period.kind);
    const held =
      index < 0 ? 0n : outcome.scopeHeld ? (parseDecimal(outcome.scopeHeld[index]) ?? 0n) : decimalOf(outcome.held);
    const used = index < 0 ? args.inUse[args.cheaperCap]! : (parseDecimal(outcome.spent[index]) ?? 0n) + held;
    args.emit({
      type: 'status',
      data: { description: switchedStatus(requested, choice.model, cap, capPercent(cap, used)), done: true },
    });
    return { body: cheaper, estimate, outcome, caps };
  }
}

/**
 * The ids a model budget holds a request by: the model it names and the id it is priced as (a workspace model's base
 * model), as the recorded reply names them (ModelIds).
 */
function modelIdsOf(
  body: Record<string, unknown>,
  pricing: PricingLookup | undefined,
  valves: Pick<SpendCapValves, 'model_limits'>,
): ModelIds | undefined {
  if (typeof body.model !== 'string') return undefined;
  // The price table is asked only when a model budget is set (the other caps do not depend on the model).
  const budgets = valves.model_limits && Object.keys(valves.model_limits).length > 0;
  return budgets ? [body.model, pricedModelId(body, pricing)] : body.model;
}

/** The request rate limit (rate-limits.ts): 429 `ERR_RATE_LIMIT` past the user's requests per minute. */
async function limitRate(
  state: ScopedState,
  userId: string,
  user: PipelineUser,
  valve: z.infer<typeof rateLimitsValve>,
  at: number,
  logger: Logger,
): Promise<void> {
  const limit = rateLimitFor(valve, user);
  if (!limit) return;
  try {
    await countRequest({
      state,
      kind: 'rate',
      userId,
      limit: limit.perMinute,
      now: at,
      refusal: () => rateLimitMessage(limit),
    });
  } catch (error) {
    if (error instanceof FilterError) {
      logger.info({ user: userId, limit: limit.perMinute, by: limit.source }, 'spend-limit: rate limit');
      throw error;
    }
    // The store cannot count: requests go on (as when it cannot hold spend).
    logger.warn({ err: String(error) }, 'spend-limit: rate limit not counted (the state store failed)');
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
    const share = capShare(used, cap.limit);
    if (share >= fraction && (!nearest || share > nearest.share)) nearest = { cap, used, share };
  }
  return nearest;
}
