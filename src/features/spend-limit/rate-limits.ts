/**
 * Request rate limits, independent of money: at most N requests per minute per user, chosen per user, per group, per
 * role or by default (the `rate_limits` valve of the spend-limit filter), and the slow-down of a cap's soft mode.
 *
 * The window slides: a request passes when fewer than N of the user's requests passed in the 60 s before it, so no
 * 60 s ever holds more than N, however they straddle a minute boundary. The times are kept by the state store's
 * atomic sliding window (`windowAdmit`: at most N times per user, one atomic step on SQLite and on Redis), so the
 * limit holds across Redis replicas. A refused request is not counted, and its "Try again in X s" is the true wait:
 * when the oldest of the N counted requests leaves the window.
 */
import { z } from 'zod';
import { FilterError } from '../../core/errors/filter-error.js';
import type { PipelineUser } from '../../core/messages/request.js';
import type { ScopedState } from '../../state/scoped-state.js';

const perMinute = z.number().int().min(0);

/** The `rate_limits` valve: requests per minute; 0 = no limit; absent = inherit. */
export const rateLimitsValve = z
  .strictObject({
    default: perMinute.default(0).describe('Requests per minute per user (0 = no limit)'),
    roles: z.record(z.string(), perMinute).default({}).describe('Per Open WebUI role, e.g. {"user": 20}'),
    groups: z
      .record(z.string(), perMinute)
      .default({})
      .describe('Per Open WebUI group (name or id); a member of several gets the highest, e.g. {"Engineering": 60}'),
    users: z
      .record(z.string(), perMinute)
      .default({})
      .describe('Per user id or email, over everything else, e.g. {"ann@example.com": 100}'),
  })
  .default({ default: 0, roles: {}, groups: {}, users: {} })
  .describe(
    'Requests per minute per user, independent of money: {"default": 30, "roles": {"user": 20}, "groups": {"Engineering": 60}, "users": {"ann@example.com": 100}}; 0 = no limit',
  );

export type RateLimitsValve = z.infer<typeof rateLimitsValve>;

/** The limit in force for a user and what set it (for the message): the most specific rule wins. */
export interface RateLimit {
  perMinute: number;
  /** `your account`, `your group Engineering`, `your role`, `everyone` */
  source: string;
}

/**
 * The rate limit of `user`: their own (by id, then email) → the highest among their groups (by id or name; a group
 * grants its members its rate) → their role's → the default. Undefined when that rule says 0 (no limit).
 */
export function rateLimitFor(valve: Partial<RateLimitsValve>, user: PipelineUser): RateLimit | undefined {
  // Read defensively: a valves file edited by hand may leave parts out.
  const users = valve.users ?? {};
  const groups = valve.groups ?? {};
  const roles = valve.roles ?? {};
  const pick = (): RateLimit => {
    const own = (user.id ? users[user.id] : undefined) ?? (user.email ? users[user.email] : undefined);
    if (own !== undefined) return { perMinute: own, source: 'your account' };
    let best: RateLimit | undefined;
    for (const group of Array.isArray(user.groups) ? user.groups : []) {
      if (typeof group?.id !== 'string') continue;
      const limit = groups[group.id] ?? (group.name ? groups[group.name] : undefined);
      if (limit === undefined) continue;
      // 0 (no limit) is the most generous of all.
      const better = !best || limit === 0 || (best.perMinute !== 0 && limit > best.perMinute);
      if (better) best = { perMinute: limit, source: `your group ${group.name ?? group.id}` };
    }
    if (best) return best;
    const byRole = user.role ? roles[user.role] : undefined;
    if (byRole !== undefined) return { perMinute: byRole, source: 'your role' };
    return { perMinute: valve.default ?? 0, source: 'everyone' };
  };
  const limit = pick();
  return limit.perMinute > 0 ? limit : undefined;
}

const MINUTE_MS = 60_000;

/**
 * Admits this request into the user's sliding window `kind` (the last 60 s) or refuses it (429 `ERR_RATE_LIMIT`) when
 * `limit` requests already passed in it, saying how long until one leaves. `kind` keeps the rate limit and a cap's
 * slow-down apart.
 */
export async function countRequest(args: {
  state: ScopedState;
  kind: 'rate' | 'slow';
  userId: string;
  limit: number;
  now: number;
  /** What the user reads before "try again in …". */
  refusal: (limit: number) => string;
}): Promise<void> {
  const admission = await args.state.windowAdmit(`${args.kind}-window:${args.userId}`, {
    limit: args.limit,
    windowMs: MINUTE_MS,
    now: args.now,
  });
  if (admission.admitted) return;
  const retryAfter = Math.max(1, Math.ceil((admission.retryAt - args.now) / 1000));
  throw new FilterError(429, `${args.refusal(args.limit)} Try again in ${retryAfter} s.`, { code: 'ERR_RATE_LIMIT' });
}

/** The rate limit's message: "Too many requests: at most 20 per minute for your role." */
export function rateLimitMessage(limit: RateLimit): string {
  return `Too many requests: at most ${limit.perMinute} per minute for ${limit.source}.`;
}
