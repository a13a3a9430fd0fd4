/**
 * Request rate limits, independent of money: at most N requests per minute per user, chosen per user, per group, per
 * role or by default (the `rate_limits` valve of the spend-limit filter), and the slow-down of a cap's soft mode.
 * Counted in the state store's atomic counters (one counter per user and UTC minute, expiring after two minutes), so
 * the limit holds across Redis replicas: every replica adds to the same counter.
 *
 * The window is the calendar minute (fixed window): a user may send up to N requests at the end of one minute and N at
 * the start of the next. The refused request counts too (the counter is added to before it is read).
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
 * Counts this request in the user's counter `kind` of the current UTC minute and refuses it (429 `ERR_RATE_LIMIT`)
 * past `limit`, saying when the next minute starts. `kind` keeps the rate limit and a cap's slow-down apart.
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
  const minute = Math.floor(args.now / MINUTE_MS);
  const count = await args.state.increment(`${args.kind}:${args.userId}:${minute}`, 1, { ttlMs: 2 * MINUTE_MS });
  if (count <= args.limit) return;
  const retryAfter = Math.max(1, Math.ceil(((minute + 1) * MINUTE_MS - args.now) / 1000));
  throw new FilterError(429, `${args.refusal(args.limit)} Try again in ${retryAfter} s.`, { code: 'ERR_RATE_LIMIT' });
}

/** The rate limit's message: "Too many requests: at most 20 per minute for your role." */
export function rateLimitMessage(limit: RateLimit): string {
  return `Too many requests: at most ${limit.perMinute} per minute for ${limit.source}.`;
}
